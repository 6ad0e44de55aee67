import { describe, expect, it } from 'vitest';
import { compilePolicy, withDefaults } from '../../../shared/access/access-policy.ts';
import { secretContext } from '../../../shared/platform/crypto/context.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { caught, principal, sealedFor } from '../support/fakes.ts';
import { secretHarness } from './support.ts';

/**
 * Single reveals of a value with references (decisions.md v1.4, "Secret references"; shared/secrets/secret-reveals.ts
 * and secret-reference-reveals.ts) over the in-memory store: resolved only for the current value marked at write
 * time and not asked raw; each level one batch read; every target revealed audited with `via` in the same store call
 * as the caller's own entry, before the value leaves; any failure 409 with `details`, no value and no target audited.
 */

const viaOf = (audits: readonly AuditEntry[]) => audits.map((entry) => [entry.target, entry.metadata.via ?? null]);

describe('a reveal of a current value with references', () => {
  it('resolves every level, reads each level in one batch, and audits each target with via in one call before answering', async () => {
    // Prepare
    const h = secretHarness();
    const c = await h.write('C', 'c');
    const b = await h.write('B', 'b-${C}');
    const user = await h.write('USER', 'u');
    const a = await h.write('A', 'pg://${USER}:${B}@host/${USER}');
    h.events.length = 0;

    // Act
    const revealed = await h.service.revealById(h.caller, a.id, undefined);

    // Assess
    expect(revealed).toMatchObject({ key: 'A', version: 1, value: 'pg://u:b-c@host/u' });
    expect(h.batchReads).toEqual([['app/prod/USER', 'app/prod/B'], ['app/prod/C']]);
    expect(h.reveals).toHaveLength(1);
    // The level-2 target's `via` is the secret that referenced it (B), each entry at its own current version.
    expect(viaOf(h.reveals[0]!.audits)).toEqual([
      [a.id, null],
      [user.id, a.id],
      [b.id, a.id],
      [c.id, b.id],
    ]);
    expect(h.reveals[0]!.audits.map((entry) => entry.action)).toEqual(Array(4).fill('secret.reveal'));
    expect(h.reveals[0]!.audits[3]!.metadata).toMatchObject({ key: 'C', version: 1, via: b.id });
    // Its own value, then its targets' values, and only then the one audit call: nothing has left yet.
    expect(h.events).toEqual(['decrypt', 'decrypt', 'decrypt', 'decrypt', 'recordReveal']);
  });

  it('resolves a reference to another environment of the project by its slug', async () => {
    const h = secretHarness();
    const a = await h.write('A', 'host=${staging.HOST}');
    const other = { ...h.heads.get(a.id)!, id: 'sec_other', envSlug: 'staging', environmentId: 'env_02', key: 'HOST' };
    h.heads.set('sec_other', { ...other, references: undefined, sealed: sealedFor('db', secretContext('ws_test', 'sec_other', 1)) });
    delete h.heads.get('sec_other')!.references;
    expect(await h.service.revealByPath(h.caller, 'app/prod/A', undefined)).toMatchObject({ id: a.id, value: 'host=db' });
    expect(viaOf(h.reveals[0]!.audits)).toEqual([
      [a.id, null],
      ['sec_other', a.id],
    ]);
  });

  it('answers the text as written, reading no target, when asked raw, for a past version, or for a value not marked', async () => {
    const h = secretHarness();
    await h.write('B', 'b');
    const a = await h.write('A', 'x-${B}');
    await h.write('A', 'y-${B}');
    const raw = await h.service.revealById(h.caller, a.id, undefined, undefined, true);
    const rawByPath = await h.service.revealByPath(h.caller, 'app/prod/A', undefined, undefined, true);
    const past = await h.service.revealById(h.caller, a.id, 1);
    // A value written before v1.4 that happens to hold `${`: no marker, answered as written.
    delete h.heads.get(a.id)!.references;
    const unmarked = await h.service.revealById(h.caller, a.id, undefined);
    expect([raw.value, rawByPath.value, past.value, unmarked.value]).toEqual(['y-${B}', 'y-${B}', 'x-${B}', 'y-${B}']);
    expect(h.batchReads).toEqual([]);
    expect(h.reveals.map((reveal) => reveal.audits.length)).toEqual([1, 1, 1, 1]);
  });

  it("the AWS API's GetSecretValue (revealSelected) resolves the current version, not another one it selects", async () => {
    const h = secretHarness();
    await h.write('B', 'b');
    await h.write('A', 'old-${B}');
    await h.write('A', 'new-${B}');
    const current = await h.service.revealSelected(h.caller, 'app/prod/A', async (secret) => secret.currentVersion);
    const previous = await h.service.revealSelected(h.caller, 'app/prod/A', async () => 1);
    expect([current.value, previous.value]).toEqual(['new-b', 'old-${B}']);
  });

  it('a plain value reads and decrypts exactly as before: no batch read, audit then decrypt', async () => {
    const h = secretHarness();
    const a = await h.write('A', 'plain $${B}');
    h.events.length = 0;
    expect((await h.service.revealById(h.caller, a.id, undefined)).value).toBe('plain $${B}');
    expect(h.batchReads).toEqual([]);
    expect(h.events).toEqual(['recordReveal', 'decrypt']);
  });
});

describe('a reveal whose references cannot be resolved: 409 with details, no value, no audit of anything', () => {
  const refused = async (act: () => Promise<unknown>) => {
    const error = (await caught(act)) as Error & { code?: string; details?: unknown };
    return { code: error.code, details: error.details };
  };

  it('a target the caller may read but not reveal (its denial audited, as a reveal of it), or may not read, is unresolvable', async () => {
    const h = secretHarness();
    const denials: string[] = [];
    Object.assign(h.store, { recordDenial: async (_ws: string, _credential: string, subject: string) => void denials.push(subject) });
    await h.write('B', 'b');
    await h.write('HIDDEN', 'h');
    const a = await h.write('A', '${B}${HIDDEN}');
    const scoped = principal({
      authority: {
        policy: compilePolicy([
          withDefaults({ actions: ['read', 'reveal'], keys: ['A'] }),
          withDefaults({ actions: ['read'], keys: ['B'] }),
        ]),
        admin: false,
      },
    });
    expect(await refused(() => h.service.revealById(scoped, a.id, undefined))).toEqual({
      code: 'CONFLICT',
      details: [
        { reference: 'B', reason: 'unresolvable' },
        { reference: 'HIDDEN', reason: 'unresolvable' },
      ],
    });
    // A secret the caller may not even read is not there for it: no denial names it.
    expect(denials).toEqual(['reveal#env_01#B']);
    expect(h.reveals).toEqual([]);
  });

  it('a target that does not exist or holds a binary value is unresolvable; a cycle is cycle', async () => {
    const h = secretHarness();
    const binary = await h.write('BIN', 'AAEC');
    h.heads.get(binary.id)!.encoding = 'base64';
    const toBinary = await h.write('TB', '${BIN}');
    expect(await refused(() => h.service.revealById(h.caller, toBinary.id, undefined))).toEqual({
      code: 'CONFLICT',
      details: [{ reference: 'BIN', reason: 'unresolvable' }],
    });
    const missing = await h.write('M', 'x${NOPE}');
    const a = await h.write('A', '${B}');
    await h.write('B', '${A}');
    expect(await refused(() => h.service.revealById(h.caller, missing.id, undefined))).toEqual({
      code: 'CONFLICT',
      details: [{ reference: 'NOPE', reason: 'unresolvable' }],
    });
    expect(await refused(() => h.service.revealById(h.caller, a.id, undefined))).toMatchObject({
      code: 'CONFLICT',
      details: [expect.objectContaining({ reason: 'cycle' })],
    });
    expect(h.reveals).toEqual([]);
  });
});
