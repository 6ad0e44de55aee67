import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedGet, guardedRequest } from '../../../shared/net/guarded-get.ts';
import { parseAllowedCidrs } from '../../../shared/net/ssrf.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../../support/https-receiver.ts';

const allow = parseAllowedCidrs('127.0.0.0/8');
const base = { allow, timeoutMs: 5_000, maxBytes: 1_024 };

describe('guardedRequest: the guarded GET for any method (shared/net/guarded-get.ts)', () => {
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });
  afterAll(() => receiver.close());

  it('sends the method, headers and body to the pinned address', async () => {
    receiver.respond({ status: 201, body: '{"ok":true}' });
    const result = await guardedRequest(`${receiver.origin}/things/1`, {
      ...base,
      method: 'PUT',
      headers: { 'X-Api': '1' },
      body: '{"a":1}',
    });
    expect(result).toEqual({ kind: 'answered', statusCode: 201, body: Buffer.from('{"ok":true}') });
    expect(receiver.requests.at(-1)).toMatchObject({ method: 'PUT', path: '/things/1', body: '{"a":1}', headers: { 'x-api': '1' } });
  });

  it("reads a refusal's body (an API explains itself there), which guardedGet still drops unread", async () => {
    receiver.respond({ status: 401, body: '{"message":"Bad credentials"}' });
    expect(await guardedRequest(`${receiver.origin}/x`, { ...base, method: 'DELETE' })).toEqual({
      kind: 'answered',
      statusCode: 401,
      body: Buffer.from('{"message":"Bad credentials"}'),
    });
    expect(await guardedGet(`${receiver.origin}/x`, base)).toEqual({ kind: 'answered', statusCode: 401, body: Buffer.alloc(0) });
  });

  it('refuses what the guard refuses (a blocked address, plain http), sending nothing', async () => {
    const before = receiver.requests.length;
    expect(await guardedRequest(`${receiver.origin}/x`, { ...base, allow: [], method: 'PUT', body: '{}' })).toEqual({
      kind: 'refused',
      reason: 'blocked: 127.0.0.1 (loopback)',
    });
    expect(await guardedRequest(`http://127.0.0.1:${receiver.port}/x`, { ...base, method: 'DELETE' })).toEqual({
      kind: 'refused',
      reason: 'must be an https URL',
    });
    expect(receiver.requests).toHaveLength(before);
  });
});
