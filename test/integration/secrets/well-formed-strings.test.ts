import { beforeAll, describe, expect, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';

/** Values and names with lone surrogates are refused, naming the field; any well-formed string is kept exactly. */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

describe('well-formed strings', () => {
  let ws: Ws;
  let envId: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    const project = (await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'unicode' } })).body.data;
    envId = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token: ws.apiKey, body: { name: 'prod' } })).body.data.id;
  });

  it('refuses a value or a name with a lone surrogate, naming the field, and writes nothing', async () => {
    // Prepare: JSON escapes, so the lone surrogate reaches the service as it was sent
    const put = (body: string) =>
      call('PUT', `/api/v1/environments/${envId}/secrets`, {
        token: ws.apiKey,
        rawBody: body,
        headers: { 'content-type': 'application/json' },
      });
    // Act
    const value = await put('{"key":"LONE","value":"abc\\ud800def"}');
    const name = await call('POST', '/api/v1/projects', {
      token: ws.apiKey,
      rawBody: '{"name":"x\\udc00"}',
      headers: { 'content-type': 'application/json' },
    });
    // Assess
    expect(value.status).toBe(400);
    expect(value.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'value: must be well-formed Unicode (a lone surrogate is not)' });
    expect(name.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'name: must be well-formed Unicode (a lone surrogate is not)' });
    const listed = await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey });
    expect(listed.body.data).toEqual([]);
  });

  it('stores and reveals astral characters, combining marks and the empty string exactly', async () => {
    for (const [key, value] of [
      ['ASTRAL', '🔑 𝒜𝒷𝒸 \u{10FFFF} e\u0301'],
      ['EMPTY', ''],
    ] as const) {
      const written = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value } });
      const revealed = await call('POST', `/api/v1/secrets/${written.body.data.id}/reveal`, { token: ws.apiKey });
      expect(revealed.body.data.value).toBe(value);
    }
  });
});
