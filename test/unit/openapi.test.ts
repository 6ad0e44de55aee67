import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { openApiModuleText, openApiText } from '../../bin/openapi.ts';
import { OPENAPI_GZIP_BASE64 } from '../../functions/openapi/document.ts';
import { acceptsGzip, handler } from '../../functions/openapi/handler.ts';
import { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { apiEvent } from '../support/api-event.ts';

const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');

describe('the OpenAPI document', () => {
  it('is committed as generated: run `npm run openapi` after changing a route or a schema', () => {
    expect(committed).toBe(openApiText());
    // The gzip bytes depend on the machine's zlib; what they inflate to must be the committed document, and the rest
    // of the module is what the generator writes.
    const moduleText = readFileSync(new URL('../../functions/openapi/document.ts', import.meta.url), 'utf8');
    expect(moduleText.replace(/"[A-Za-z0-9+/=]+"/, '"…"')).toBe(openApiModuleText().replace(/"[A-Za-z0-9+/=]+"/, '"…"'));
    expect(gunzipSync(Buffer.from(OPENAPI_GZIP_BASE64, 'base64')).toString('utf8')).toBe(JSON.stringify(JSON.parse(committed)));
  });

  it('is served gzipped, as stored, to a client that accepts gzip', async () => {
    // Act
    const answer = await handler(openApiEvent('gzip, deflate, br'));
    // Assess
    expect(answer).toMatchObject({
      statusCode: 200,
      isBase64Encoded: true,
      headers: { 'content-encoding': 'gzip', vary: 'accept-encoding' },
    });
    expect(answer.headers?.['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(gunzipSync(Buffer.from(answer.body!, 'base64')).toString('utf8'))).toEqual(JSON.parse(committed));
  });

  it('is served inflated, compact, to a client that does not accept gzip', async () => {
    for (const accept of [undefined, 'identity', 'gzip;q=0, br', 'br;q=1, *;q=0']) {
      // Act
      const answer = await handler(openApiEvent(accept));
      // Assess
      expect(answer.headers).not.toHaveProperty('content-encoding');
      expect(answer.isBase64Encoded).toBeUndefined();
      expect(answer.body).toBe(JSON.stringify(JSON.parse(committed)));
    }
  });

  it('reads Accept-Encoding as RFC 9110 does: codings case-insensitive, q-values, x-gzip and the * wildcard', () => {
    const admits = ['gzip', 'GZIP', 'x-gzip', 'br, gzip;q=0.001', 'identity, * ;q=0.5', 'gzip ; q=1.0', 'deflate,gzip'];
    const refuses = [
      '',
      'identity',
      'br, deflate',
      'gzip;q=0',
      'gzip; q=0.000',
      'gzip; q = 0',
      '*;q=0',
      'gzip;q=0, *',
      'gzip;q=zero',
      'gzipped',
    ];
    expect(admits.filter((header) => !acceptsGzip(header))).toEqual([]);
    expect(refuses.filter((header) => acceptsGzip(header))).toEqual([]);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(JSON.parse(committed));
    expect(result).toMatchObject({ valid: true, specification: 'OpenAPI' });
    expect('errors' in result ? result.errors : []).toEqual([]);
  });

  it('describes every route of the stack, each with a unique camelCase operationId', () => {
    const document = JSON.parse(committed) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(document.openapi).toBe('3.1.0');
    const described = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    // Every REST route; the AWS API's `POST /` is described by AWS's own service model.
    expect(described.sort()).toEqual(
      Object.entries(ROUTE_GROUPS)
        .filter(([group]) => group !== 'aws')
        .flatMap(([, routes]) => routes)
        .sort(),
    );
    const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]+$/);
  });

  it('lists the webhook events and the test event with their signature headers', () => {
    const document = JSON.parse(committed) as { webhooks: Record<string, { post: { parameters: { name: string }[] } }> };
    expect(Object.keys(document.webhooks).sort()).toEqual([
      'service.change_request.approved',
      'service.change_request.closed',
      'service.change_request.merged',
      'service.change_request.opened',
      'service.ping',
      'service.secret.create',
      'service.secret.delete',
      'service.secret.reveal',
      'service.secret.rotate',
      'service.secret.rotation_failed',
      'service.sync.failed',
      'service.sync.recovered',
      'service.webhook_endpoint.disabled',
    ]);
    for (const event of Object.values(document.webhooks)) expect(event.post.parameters.map((p) => p.name)).toContain('Service-Signature');
  });
});

/** The event API Gateway builds for `GET /api/v1/openapi.json`, with the given Accept-Encoding header or none. */
const openApiEvent = (acceptEncoding: string | undefined) =>
  apiEvent('GET /api/v1/openapi.json', { headers: { 'accept-encoding': acceptEncoding } });

describe('the SDK types', () => {
  it('are generated from the committed document: run `npm run sdk:types` after `npm run openapi`', async () => {
    const { default: openapiTS } = await import('openapi-typescript');
    const generated = await openapiTS(new URL('../../docs/openapi.json', import.meta.url));
    expect(readFileSync(new URL('../../sdk/src/api.ts', import.meta.url), 'utf8')).toBe(generated);
  });
});
