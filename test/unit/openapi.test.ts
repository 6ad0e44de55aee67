import { readFileSync } from 'node:fs';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { openApiModuleText, openApiText } from '../../bin/openapi.ts';
import { OPENAPI_BODY } from '../../functions/openapi/document.ts';
import { ROUTE_GROUPS } from '../../shared/routes.ts';

const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');

describe('the OpenAPI document', () => {
  it('is committed as generated: run `npm run openapi` after changing a route or a schema', () => {
    expect(committed).toBe(openApiText());
    expect(readFileSync(new URL('../../functions/openapi/document.ts', import.meta.url), 'utf8')).toBe(openApiModuleText());
  });

  it('is served as committed: the function answers the same document, compact', () => {
    expect(OPENAPI_BODY).toBe(JSON.stringify(JSON.parse(committed)));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(JSON.parse(committed));
    expect(result).toMatchObject({ valid: true, specification: 'OpenAPI' });
    expect('errors' in result ? result.errors : []).toEqual([]);
  });

  it('describes every route of the stack, each with a unique camelCase operationId', () => {
    const document = JSON.parse(committed) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(document.openapi).toBe('3.1.0');
    const described = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(described.sort()).toEqual(Object.values(ROUTE_GROUPS).flat().sort());
    const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]+$/);
  });

  it('lists the five webhook events with their signature headers', () => {
    const document = JSON.parse(committed) as { webhooks: Record<string, { post: { parameters: { name: string }[] } }> };
    expect(Object.keys(document.webhooks).sort()).toEqual([
      'service.secret.create', 'service.secret.delete', 'service.secret.reveal', 'service.secret.rotate', 'service.webhook_endpoint.disabled',
    ]);
    for (const event of Object.values(document.webhooks)) expect(event.post.parameters.map((p) => p.name)).toContain('Service-Signature');
  });
});

describe('the SDK types', () => {
  it('are generated from the committed document: run `npm run sdk:types` after `npm run openapi`', async () => {
    const { default: openapiTS } = await import('openapi-typescript');
    const generated = await openapiTS(new URL('../../docs/openapi.json', import.meta.url));
    expect(readFileSync(new URL('../../sdk/src/api.ts', import.meta.url), 'utf8')).toBe(generated);
  });
});
