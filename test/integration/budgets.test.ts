import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { makeAuthenticator } from '../../shared/auth/authenticate.ts';
import { observeAwsCalls, type AwsCallEvent } from '../../bin/local/instrumentation.ts';
import { makeCipher } from '../../shared/crypto/envelope.ts';
import { makeLocalKeyring } from '../../shared/crypto/local-keyring.ts';
import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { makeSecretService } from '../../shared/services/secrets.ts';
import { makeSecretRoutes } from '../../functions/secrets/routes.ts';
import { makeAuditRoutes } from '../../functions/audit/routes.ts';
import { makeAuditService } from '../../shared/services/audit.ts';
import { localStore, newWorkspace } from '../support/api.ts';
import { newEnvironment } from '../support/secrets.ts';

/**
 * The deterministic performance budgets (issue "Performance"): AWS requests and DynamoDB capacity units per
 * operation, counted by the SDK middleware around the real route-group handlers over the local stack's table.
 */
const context = { getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

function event(routeKey: string, token: string, extra: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return { version: '2.0', routeKey, rawPath: '/', rawQueryString: '', headers: { authorization: `Bearer ${token}` }, isBase64Encoded: false, requestContext: {} as never, ...extra };
}

describe('AWS calls per operation', () => {
  const events: AwsCallEvent[] = [];
  let stop: () => void;
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let envId: string;
  let secrets: ReturnType<typeof makeRouteGroupHandler>;
  let audit: ReturnType<typeof makeRouteGroupHandler>;

  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'budget', environment: 'prod' })).environment.id;
    const { store } = localStore();
    const clock = { now: () => Date.now() };
    const authenticate = makeAuthenticator({ store, clock });
    const cipher = makeCipher({ keys: makeLocalKeyring({ keyFile: join(inject('localDir'), 'master.key') }), dataKeyCache: {} });
    secrets = makeRouteGroupHandler(makeSecretRoutes(makeSecretService({ store, cipher, clock, revealsPerMinute: 10_000 })), { authenticate, timeoutEarlyInMillis: 0 });
    audit = makeRouteGroupHandler(makeAuditRoutes(makeAuditService({ store })), { authenticate, timeoutEarlyInMillis: 0 });
    stop = observeAwsCalls((e) => events.push(e));
  });
  afterAll(() => stop());

  async function measure(handler: ReturnType<typeof makeRouteGroupHandler>, e: APIGatewayProxyEventV2) {
    events.length = 0;
    const result = await handler(e, context);
    expect(result.statusCode, result.body).toBeLessThan(300);
    const dynamo = events.filter((x) => x.service === 'DynamoDB');
    return {
      body: JSON.parse(result.body!),
      dynamodb: dynamo.length,
      operations: dynamo.map((x) => x.operation),
      kms: events.filter((x) => x.service === 'KMS').length,
      readUnits: dynamo.reduce((sum, x) => sum + (x.readUnits ?? 0), 0),
      writeUnits: dynamo.reduce((sum, x) => sum + (x.writeUnits ?? 0), 0),
    };
  }
  const put = (key: string, value = 'v') =>
    event('PUT /api/v1/environments/{envId}/secrets', ws.apiKey, { pathParameters: { envId }, body: JSON.stringify({ key, value }) });

  it('write: one transaction plus one read (shared with authentication) and one KMS request', async () => {
    const created = await measure(secrets, put('BUDGET'));
    expect(created).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'TransactWriteItems'], kms: 1 });
    expect(created.readUnits).toBeLessThanOrEqual(4);
    expect(created.writeUnits).toBeLessThanOrEqual(10);
    const rotated = await measure(secrets, put('BUDGET', 'v2'));
    expect(rotated).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'TransactWriteItems'], kms: 1 });
  });

  it('reveal: at most 2 DynamoDB requests and 1 KMS request, and 0 KMS revealing the same version again', async () => {
    const id = (await measure(secrets, put('REVEALED'))).body.data.id;
    const reveal = (query?: Record<string, string>) =>
      event('POST /api/v1/secrets/{secretId}/reveal', ws.apiKey, { pathParameters: { secretId: id }, ...(query ? { queryStringParameters: query } : {}) });
    const cold = await measure(secrets, reveal());
    expect(cold).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'TransactWriteItems'], kms: 1 });
    const warm = await measure(secrets, reveal());
    expect(warm).toMatchObject({ dynamodb: 2, kms: 0 });
    expect(warm.readUnits).toBeLessThanOrEqual(3);
    expect(warm.writeUnits).toBeLessThanOrEqual(4);
    await measure(secrets, put('REVEALED', 'v2'));
    const older = await measure(secrets, reveal({ version: '1' }));
    expect(older).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'TransactWriteItems'], kms: 0 });
    const byPath = await measure(secrets, event('POST /api/v1/reveal', ws.apiKey, { body: JSON.stringify({ path: 'budget/prod/REVEALED' }) }));
    expect(byPath).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'TransactWriteItems'] });
    expect(byPath.kms).toBeLessThanOrEqual(1);
  });

  it('loading an environment: at most 3 + ceil(n/25) DynamoDB requests for a page of n, one KMS request per data key not cached', async () => {
    // Prepare: an environment of 30 secrets, in a workspace of its own (the other budgets search their workspace)
    const own = await newWorkspace();
    const env = (await newEnvironment(own.apiKey, { project: 'bulk-budget', environment: 'prod' })).environment.id;
    for (let i = 0; i < 30; i++) {
      await measure(secrets, event('PUT /api/v1/environments/{envId}/secrets', own.apiKey, { pathParameters: { envId: env }, body: JSON.stringify({ key: `K${i}`, value: `v${i}` }) }));
    }
    const load = () => event('POST /api/v1/environments/{envId}/secrets/reveal', own.apiKey, { pathParameters: { envId: env } });
    // Act
    const cold = await measure(secrets, load());
    const warm = await measure(secrets, load());
    // Assess: authentication with the environment, one Query, one count, the 30 audit entries in 2 batches
    expect(cold.body.data).toHaveLength(30);
    expect(cold.dynamodb).toBeLessThanOrEqual(3 + Math.ceil(30 / 25));
    expect(cold.operations).toEqual(['BatchGetItem', 'Query', 'TransactWriteItems', 'BatchWriteItem', 'BatchWriteItem']);
    expect(cold.kms).toBe(30);
    expect(warm).toMatchObject({ dynamodb: 5, kms: 0 });
  });

  it('list, search and the audit log: one read for the credential and one Query', async () => {
    const list = await measure(secrets, event('GET /api/v1/environments/{envId}/secrets', ws.apiKey, { pathParameters: { envId } }));
    expect(list).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'Query'], kms: 0, writeUnits: 0 });
    const search = await measure(secrets, event('GET /api/v1/search/secrets', ws.apiKey, { queryStringParameters: { q: 'budget' } }));
    expect(search).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'Query'], kms: 0 });
    const log = await measure(audit, event('GET /api/v1/audit', ws.apiKey));
    expect(log).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'Query'], kms: 0 });
  });

  it('delete: the read, one transaction, then one Query and one batch of deletes per 25 versions', async () => {
    const id = (await measure(secrets, put('GONE'))).body.data.id;
    await measure(secrets, put('GONE', 'v2'));
    const deleted = await measure(secrets, event('DELETE /api/v1/secrets/{secretId}', ws.apiKey, { pathParameters: { secretId: id } }));
    expect(deleted.operations).toEqual(['BatchGetItem', 'TransactWriteItems', 'Query', 'BatchWriteItem', 'BatchWriteItem']);
    expect(deleted.kms).toBe(0);
  });
});
