import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The CLI verifies the audit log with the service's own canonical form, digest record and verifier: the SDK is
 * published on its own and imports nothing of the service, so it holds copies of those three modules
 * (sdk/src/audit-verify/), which must stay the service's byte for byte but for their import extensions. A change to
 * one side fails here until the other follows (copy it with the `.ts` of its imports as `.js`).
 */
describe("the SDK's copy of the digest verifier", () => {
  it.each(['digest-canonical', 'digest-record', 'digest-verify'])('%s.ts is the service module as the SDK imports it', (name) => {
    // Prepare
    const service = readFileSync(new URL(`../../../shared/audit-digests/${name}.ts`, import.meta.url), 'utf8');
    const copy = readFileSync(new URL(`../../../sdk/src/audit-verify/${name}.ts`, import.meta.url), 'utf8');
    // Assess
    expect(copy).toBe(service.replace(/from '\.\/(digest-[a-z-]+)\.ts'/g, "from './$1.js'"));
  });
});
