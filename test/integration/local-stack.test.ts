import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { call } from '../support/api.ts';

describe('local stack', () => {
  it('writes stack.json with the base URL and the bootstrap workspace key, which works', async () => {
    const stackJson = JSON.parse(readFileSync(join(inject('localDir'), 'stack.json'), 'utf8'));
    expect(stackJson).toMatchObject({ baseUrl: inject('stack').baseUrl, workspaceId: expect.stringMatching(/^ws_/), apiKey: expect.stringMatching(/^sk_live_/) });
    expect((await call('GET', '/api/v1/projects', { token: stackJson.apiKey })).status).toBe(200);
  });

  it('makes the local keyring master key under LOCAL_DIR, readable by its owner only', () => {
    const file = statSync(join(inject('localDir'), 'master.key'));
    expect(file.size).toBe(32);
    expect(file.mode & 0o777).toBe(0o600);
  });
});
