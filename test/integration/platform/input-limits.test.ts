import { beforeAll, describe, expect, inject, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { call, newWorkspace } from '../../support/api.ts';
import { checkAnswer } from '../../support/contract.ts';

/** Sends bytes as they are, through the local API Gateway, and checks the answer against the document. */
async function rawCall(method: string, path: string, token: string, body: Buffer | string) {
  const response = await fetch(`${inject('stack').baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const parsed = JSON.parse(await response.text());
  checkAnswer(method, path, response.status, parsed);
  return { status: response.status, body: parsed };
}

describe('input limits over HTTP (issue "Security fixes", items 6 and 7)', () => {
  let token: string;
  let envId: string;
  let secretId: string;
  let accessKeyId: string;
  beforeAll(async () => {
    token = (await newWorkspace()).apiKey;
    const project = (await call('POST', '/api/v1/projects', { token, body: { name: 'limits' } })).body.data;
    envId = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token, body: { name: 'prod' } })).body.data.id;
    secretId = (await call('PUT', `/api/v1/environments/${envId}/secrets`, { token, body: { key: 'KEPT', value: 'v' } })).body.data.id;
    accessKeyId = (await call('POST', '/api/v1/access-keys', { token, body: { name: 'kept' } })).body.data.id;
  });

  it('refuses JSON nested 10,000 levels deep as VALIDATION_ERROR, not a 500', async () => {
    // Prepare: 20 KB
    const deep = `{"key":"DEEP","value":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    // Act
    const answer = await rawCall('PUT', `/api/v1/environments/${envId}/secrets`, token, deep);
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'body: nested deeper than 64 levels' });
  });

  it('counts a value in UTF-16 code units: 40,000 emoji (80,000 units) are refused, 32,768 (65,536 units) kept exactly', async () => {
    // Prepare
    const put = (key: string, value: string) => call('PUT', `/api/v1/environments/${envId}/secrets`, { token, body: { key, value } });
    // Act
    const over = await put('EMOJI_OVER', '😀'.repeat(40_000));
    const atLimit = await put('EMOJI_AT_LIMIT', '😀'.repeat(32_768));
    const overByOne = await put('EMOJI_OVER_BY_ONE', `${'😀'.repeat(32_768)}a`);
    // Assess
    expect(over.status).toBe(400);
    expect(over.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'value: must be at most 65536 characters' });
    expect(overByOne.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'value: must be at most 65536 characters' });
    expect(atLimit.status).toBe(200);
    const revealed = await call('POST', `/api/v1/secrets/${atLimit.body.data.id}/reveal`, { token });
    expect(revealed.body.data.value).toBe('😀'.repeat(32_768));
    const keys = (await call('GET', `/api/v1/environments/${envId}/secrets`, { token })).body.data.map((item: { key: string }) => item.key);
    expect(keys).not.toContain('EMOJI_OVER');
  });

  it('answers 413 to a 300 KB body on routes that take none, and does nothing', async () => {
    // Prepare
    const big = JSON.stringify({ pad: 'x'.repeat(300 * 1024) });
    // Act
    const answers = [
      await rawCall('POST', `/api/v1/secrets/${secretId}/reveal`, token, big),
      await rawCall('DELETE', `/api/v1/secrets/${secretId}`, token, big),
      await rawCall('POST', `/api/v1/access-keys/${accessKeyId}/revoke`, token, big),
      await rawCall('POST', `/api/v1/webhook-deliveries/${newId('delivery')}/retry`, token, big),
    ];
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(413);
      expect(answer.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'body: must be at most 262144 bytes' });
    }
    expect((await call('POST', `/api/v1/secrets/${secretId}/reveal`, { token })).body.data.value).toBe('v');
    const keys = (await call('GET', '/api/v1/access-keys', { token })).body.data;
    expect(keys.find((key: { id: string }) => key.id === accessKeyId).status).toBe('active');
  });

  it('refuses a JSON body that is not UTF-8 instead of storing U+FFFD', async () => {
    // Prepare: a lone continuation byte and an encoded surrogate inside the value, sent as application/json
    const put = (bytes: number[]) => Buffer.concat([Buffer.from('{"key":"NOT_UTF8","value":"ab'), Buffer.from(bytes), Buffer.from('"}')]);
    // Act
    const answers = [
      await rawCall('PUT', `/api/v1/environments/${envId}/secrets`, token, put([0x80])),
      await rawCall('PUT', `/api/v1/environments/${envId}/secrets`, token, put([0xed, 0xa0, 0x80])),
    ];
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'body: must be valid UTF-8' });
    }
    const keys = (await call('GET', `/api/v1/environments/${envId}/secrets`, { token })).body.data.map((item: { key: string }) => item.key);
    expect(keys).not.toContain('NOT_UTF8');
  });
});
