import { readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';
import { call } from '../../support/api.ts';

/** A GET through node:http with the given Accept-Encoding: the status line's headers and the body's raw bytes. */
async function rawGet(path: string, acceptEncoding: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(new URL(path, inject('stack').baseUrl), { headers: { 'accept-encoding': acceptEncoding } }, resolve).on('error', reject);
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { headers: response.headers, body: Buffer.concat(chunks) };
}

describe('GET /api/v1/openapi.json', () => {
  it('answers the committed document without authentication, not wrapped in the envelope', async () => {
    // Act
    const answer = await call('GET', '/api/v1/openapi.json');
    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    expect(answer.body).toEqual(JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')));
    expect(answer.body.openapi).toBe('3.1.0');
  });

  it('compresses the document for a client that accepts gzip, and only for one', async () => {
    // Act (node:http, which inflates nothing: these are the bytes that cross the wire)
    const gzipped = await rawGet('/api/v1/openapi.json', 'gzip');
    const plain = await rawGet('/api/v1/openapi.json', 'identity');
    // Assess
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 5);
    expect(JSON.parse(gunzipSync(gzipped.body).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')));
    expect(JSON.parse(plain.body.toString('utf8')).openapi).toBe('3.1.0');
  });

  it('ignores a token and answers the same document to anyone', async () => {
    const withToken = await call('GET', '/api/v1/openapi.json', { token: 'sk_live_not-a-token' });
    expect(withToken.status).toBe(200);
    expect(withToken.body.info.title).toBe('Secrets service API');
  });
});
