import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call } from '../support/api.ts';

describe('GET /api/v1/openapi.json', () => {
  it('answers the committed document without authentication, not wrapped in the envelope', async () => {
    // Act
    const answer = await call('GET', '/api/v1/openapi.json');
    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    expect(answer.body).toEqual(JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')));
    expect(answer.body.openapi).toBe('3.1.0');
  });

  it('ignores a token and answers the same document to anyone', async () => {
    const withToken = await call('GET', '/api/v1/openapi.json', { token: 'sk_live_not-a-token' });
    expect(withToken.status).toBe(200);
    expect(withToken.body.info.title).toBe('Secrets service API');
  });
});
