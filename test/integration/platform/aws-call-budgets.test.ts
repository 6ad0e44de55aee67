import { LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { makeAuthenticator } from '../../../shared/access/authenticate.ts';
import { observeAwsCalls, type AwsCallEvent } from '../../../bin/local/instrumentation.ts';
import { makeAwsInspector } from '../../../bench/calls.ts';
import { makeCipher } from '../../../shared/platform/crypto/envelope.ts';
import { makeLocalKeyring } from '../../../shared/platform/crypto/local-keyring.ts';
import { makeRouteGroupHandler } from '../../../shared/platform/http/handler.ts';
import { makeSecretService } from '../../../shared/secrets/secret-service.ts';
import { makeDeletedSecretService } from '../../../shared/secrets/deleted-secret-service.ts';
import { makeSecretRoutes } from '../../../functions/secrets/routes.ts';
import { rotationViewOf } from '../../../shared/rotation/index.ts';
import { makeAuditRoutes } from '../../../functions/audit/routes.ts';
import { makeAuditService } from '../../../shared/audit/audit-service.ts';
import { localStore, newWorkspace, stackMacs } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { storedDelivery } from '../../support/webhooks.ts';
import { newId } from '../../../shared/platform/ids.ts';
import { claimOf } from '../../../shared/webhooks/deliveries/delivery-store.ts';
import { apiEvent, lambdaContext } from '../../support/api-event.ts';

/**
 * The deterministic performance budgets (issue "Performance"): AWS requests and DynamoDB capacity units per
 * operation, counted by the SDK middleware around the real route-group handlers over the local stack's table.
 */
const context = lambdaContext();

/** The leading GetItem and BatchGetItem made in parallel, in one order (BatchGetItem first). */
function leadingReadsSorted(operations: string[]): string[] {
  const reads = operations.slice(0, 2);
  return reads.length === 2 && reads.includes('GetItem') && reads.includes('BatchGetItem')
    ? ['BatchGetItem', 'GetItem', ...operations.slice(2)]
    : operations;
}

/**
 * Write units at AWS billing (transactions count twice; index writes included), measured 2026-11-26: a delete that
 * purges at once (the transaction: the head and path items replaced by the deleted record and the path's deletion
 * marker, the key item removed, the list item and the audit entry; then the deletes of two versions, and the list item
 * and the record in a transaction of their own, which IAM sees as DeleteItems: shared/secrets/purge-store.ts), a
 * delete that keeps the secret restorable (the transaction alone: the marker, by which the AWS API names a deleted
 * secret, and the record's GSI1 copy, by which ListSecrets lists it with IncludePlannedDeletion), and a restore (head,
 * path and key items put back over the record and marker, the list item removed, the audit entry, with the key item's
 * GSI1/GSI4 and the record's GSI2 and GSI1 writes). Since 2026-12-07 a delete is 4 items and the audit entry (it was
 * 7: head, path, key and value items removed, record, list and path items put), so a change request's merge of 20 fits
 * one transaction: 26, 20 and 18 WRU before. The purge's transaction also removes the value item a secret written
 * before v1.4 may still have (2 WRU whether or not it is there).
 */
const DELETE_AT_ONCE_WRU = 22;
const DELETE_KEPT_WRU = 14;
const RESTORE_WRU = 14;

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
    // One fixed instant, so every reveal of the file falls in one rate-limit window and the leases are deterministic.
    const frozen = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
    const clock = { now: () => frozen };
    const authenticate = makeAuthenticator({ store, clock, macs: stackMacs });
    const cipher = makeCipher({ keys: makeLocalKeyring({ keyFile: join(inject('localDir'), 'master.key') }), dataKeyCache: {} });
    secrets = makeRouteGroupHandler(
      makeSecretRoutes(
        makeSecretService({ store, cipher, clock, place: LOCAL_PLACE, revealsPerMinute: 10_000, rotationOf: rotationViewOf(store) }),
        makeDeletedSecretService({ store, clock }),
        {} as never,
      ),
      {
        authenticate,
        timeoutEarlyInMillis: 0,
      },
    );
    audit = makeRouteGroupHandler(makeAuditRoutes(makeAuditService({ store }), {} as never), { authenticate, timeoutEarlyInMillis: 0 });
    const { dynamodbEndpoint, tableName } = inject('stack');
    stop = observeAwsCalls((e) => events.push(e), { inspect: makeAwsInspector(dynamodbEndpoint, tableName) });
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
      // A reveal reads the token and the rest in parallel: their order of completion is not the budget's business.
      operations: leadingReadsSorted(dynamo.map((x) => x.operation)),
      kms: events.filter((x) => x.service === 'KMS').length,
      readUnits: dynamo.reduce((sum, x) => sum + (x.readUnits ?? 0), 0),
      writeUnits: dynamo.reduce((sum, x) => sum + (x.writeUnits ?? 0), 0),
      billedReadUnits: dynamo.reduce((sum, x) => sum + (x.billed?.readUnits ?? 0), 0),
      billedWriteUnits: dynamo.reduce((sum, x) => sum + (x.billed?.writeUnits ?? 0), 0),
      billedIndexWriteUnits: dynamo.reduce((sum, x) => sum + (x.billed?.indexWriteUnits ?? 0), 0),
    };
  }
  const put = (key: string, value = 'v') =>
    apiEvent('PUT /api/v1/environments/{envId}/secrets', {
      token: ws.apiKey,
      pathParameters: { envId },
      body: JSON.stringify({ key, value }),
    });

  it('write: one transaction plus one read (shared with authentication) and one KMS request; billed units pinned', async () => {
    const created = await measure(secrets, put('BUDGET'));
    expect(created).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'TransactWriteItems'], kms: 1 });
    // At AWS billing: 4 consistent reads (token, workspace, environment, key item); the transaction's five items
    // (head, path, key item, version, audit entry), each under 1 KB, at 2 WRU, and the key item's index writes: GSI1
    // (search) and GSI4 (an environment's secrets, for scoped search), at creation only. (14 and 13 before 2026-12-07,
    // with the environment's value item, which loads read before they read the path items.)
    expect(created).toMatchObject({ billedReadUnits: 4, billedWriteUnits: 12, billedIndexWriteUnits: 2 });
    const rotated = await measure(secrets, put('BUDGET', 'v2'));
    expect(rotated).toMatchObject({
      dynamodb: 2,
      operations: ['BatchGetItem', 'TransactWriteItems'],
      kms: 1,
      billedReadUnits: 4,
      billedWriteUnits: 11,
    });
  });

  it('reveal: the token read consistently, the rest eventually, one audit PutItem, counters by lease; 0 KMS revealing the same version again', async () => {
    const id = (await measure(secrets, put('REVEALED'))).body.data.id;
    const reveal = (query?: Record<string, string>) =>
      apiEvent('POST /api/v1/secrets/{secretId}/reveal', { token: ws.apiKey, pathParameters: { secretId: id }, query });
    // The first reveal of a container leases one reveal of each counter (credential, workspace): two UpdateItems.
    const cold = await measure(secrets, reveal());
    expect(cold).toMatchObject({
      operations: ['BatchGetItem', 'GetItem', 'UpdateItem', 'UpdateItem', 'PutItem'],
      kms: 1,
      billedReadUnits: 2,
      billedWriteUnits: 3,
    });
    // Warm: the next leases double (2, 4, 8, …), so most reveals make no counter write at all.
    const warm: Awaited<ReturnType<typeof measure>>[] = [];
    for (let i = 0; i < 40; i++) warm.push(await measure(secrets, reveal()));
    const plain = warm.filter((w) => w.operations.join() === 'BatchGetItem,GetItem,PutItem');
    expect(plain.length).toBeGreaterThanOrEqual(30);
    expect(plain.every((w) => w.kms === 0 && w.billedReadUnits === 2 && w.billedWriteUnits === 1 && w.billedIndexWriteUnits === 0)).toBe(
      true,
    );
    // At AWS billing, per reveal over the 40: 2 read units (token 1, workspace and head 0.5 each) and at most 1.25
    // write units (the audit entry, 1 KB or less, plus the leases' share while they grow: 2, 4, 8, 16, 32 of each
    // counter): DynamoDB at most $1.04 a million, less once the leases have grown.
    const perReveal = (field: 'billedReadUnits' | 'billedWriteUnits') => warm.reduce((sum, w) => sum + w[field], 0) / warm.length;
    expect(perReveal('billedReadUnits')).toBe(2);
    expect(perReveal('billedWriteUnits')).toBeLessThanOrEqual(1.25);
    expect(perReveal('billedReadUnits') * 0.125 + perReveal('billedWriteUnits') * 0.625).toBeLessThanOrEqual(1.04);
    await measure(secrets, put('REVEALED', 'v2'));
    const older = await measure(secrets, reveal({ version: '1' }));
    expect(older).toMatchObject({ kms: 0, billedReadUnits: 2.5 }); // the version item beside the head
    expect(older.operations.slice(0, 2)).toEqual(['BatchGetItem', 'GetItem']);
    const byPath = await measure(
      secrets,
      apiEvent('POST /api/v1/reveal', { token: ws.apiKey, body: JSON.stringify({ path: 'budget/prod/REVEALED' }) }),
    );
    expect(byPath.operations.slice(0, 2)).toEqual(['BatchGetItem', 'GetItem']);
    expect(byPath).toMatchObject({ billedReadUnits: 2 });
    expect(byPath.kms).toBeLessThanOrEqual(1);
  });

  it("loading an environment: the credential, one Query, the leases, one conditional PutItem for the page's 30 audit entries; one KMS request per data key not cached", async () => {
    // Prepare: an environment of 30 secrets, in a workspace of its own (the other budgets search their workspace)
    const own = await newWorkspace();
    const env = (await newEnvironment(own.apiKey, { project: 'bulk-budget', environment: 'prod' })).environment.id;
    for (let i = 0; i < 30; i++) {
      await measure(
        secrets,
        apiEvent('PUT /api/v1/environments/{envId}/secrets', {
          token: own.apiKey,
          pathParameters: { envId: env },
          body: JSON.stringify({ key: `K${i}`, value: `v${i}` }),
        }),
      );
    }
    const load = () => apiEvent('POST /api/v1/environments/{envId}/secrets/reveal', { token: own.apiKey, pathParameters: { envId: env } });
    // Act
    const cold = await measure(secrets, load());
    const warm: Awaited<ReturnType<typeof measure>>[] = [];
    for (let i = 0; i < 8; i++) warm.push(await measure(secrets, load()));
    // Assess: authentication with the environment, one Query, the leases, and the page's 30 audit entries in one item
    // (one action, actor and instant: shared/audit/audit-packing.ts), one conditional PutItem (a batch could not carry
    // attribute_not_exists: docs/operations.md, "What IAM enforces"); 30 PutItems, one per entry, before 2026-12-07.
    expect(cold.body.data).toHaveLength(30);
    expect(cold.operations).toEqual(['BatchGetItem', 'GetItem', 'Query', 'UpdateItem', 'UpdateItem', 'PutItem']);
    expect(cold.kms).toBe(30);
    const plain = warm.filter((w) => w.operations.join() === ['BatchGetItem', 'GetItem', 'Query', 'PutItem'].join());
    expect(plain.length).toBeGreaterThanOrEqual(4);
    expect(warm.every((w) => w.kms === 0)).toBe(true);
    // Billed: 2 read units for the credential and environment, 2 for the Query (30 path items: the heads' copies,
    // between 4 and 8 KB in all; 1 for the smaller value items before 2026-12-07), the audit item's KBs (30 entries of
    // about 250 B: 8 WRU, where one item per entry was 30), plus the leases' share; under $0.20 of DynamoDB per
    // million secrets delivered (under $0.70 before).
    expect(plain.every((w) => w.billedReadUnits === 4 && w.billedWriteUnits <= 9)).toBe(true);
    const writes = warm.reduce((sum, w) => sum + w.billedWriteUnits, 0) / warm.length;
    const reads = warm.reduce((sum, w) => sum + w.billedReadUnits, 0) / warm.length;
    expect(writes).toBeLessThanOrEqual(10);
    expect((reads * 0.125 + writes * 0.625) / 30).toBeLessThan(0.2);
  });

  it('list, search and the audit log: one read for the credential and one Query', async () => {
    const list = await measure(
      secrets,
      apiEvent('GET /api/v1/environments/{envId}/secrets', { token: ws.apiKey, pathParameters: { envId } }),
    );
    // Billed: token and workspace consistent (2), the key items' Query under 4 KB, eventually consistent (0.5).
    expect(list).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'Query'], kms: 0, billedReadUnits: 2.5, billedWriteUnits: 0 });
    const search = await measure(secrets, apiEvent('GET /api/v1/search/secrets', { token: ws.apiKey, query: { q: 'budget' } }));
    expect(search).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'Query'], kms: 0, billedWriteUnits: 0 });
    expect(search.billedReadUnits).toBeLessThanOrEqual(3);
    const log = await measure(audit, apiEvent('GET /api/v1/audit', { token: ws.apiKey }));
    expect(log).toMatchObject({ dynamodb: 2, operations: ['BatchGetItem', 'Query'], kms: 0, billedWriteUnits: 0 });
    expect(log.billedReadUnits).toBeLessThanOrEqual(5);
  });

  it('a webhook delivery: its creation writes the endpoint log (GSI3) once; the claim and the result write only the record', async () => {
    const { store } = localStore();
    const delivery = storedDelivery(newId('webhookEndpoint'), 0);
    const billedOf = async (write: () => Promise<unknown>) => {
      events.length = 0;
      expect(await write()).toBeTruthy();
      const dynamo = events.filter((x) => x.service === 'DynamoDB');
      return {
        requests: dynamo.length,
        writeUnits: dynamo.reduce((sum, x) => sum + (x.billed?.writeUnits ?? 0), 0),
        indexWriteUnits: dynamo.reduce((sum, x) => sum + (x.billed?.indexWriteUnits ?? 0), 0),
      };
    };
    // Each write under 1 KB: 1 WRU for the record, plus 1 for the log's copy at creation only (the claim and the
    // result change attributes the log does not project). Before GSI3 the log copied everything: 6 WRU, not 4. The
    // statistics write nothing here: the bucket's rollup counts the delivery from its record (it was one UpdateItem
    // more at creation and one more at the result, 6 WRU in all).
    expect(await billedOf(() => store.createDelivery(ws.workspaceId, delivery, Date.now()))).toEqual({
      requests: 1,
      writeUnits: 2,
      indexWriteUnits: 1,
    });
    const claim = claimOf(delivery.attemptToken!, 'budget');
    const now = new Date().toISOString();
    expect(
      await billedOf(() => store.claimAttempt(ws.workspaceId, delivery.id, delivery.attemptToken!, claim, now, { redelivered: false })),
    ).toEqual({ requests: 1, writeUnits: 1, indexWriteUnits: 0 });
    const entry = { attempt: 1, at: now, statusCode: 200, durationMs: 12, error: null };
    expect(await billedOf(() => store.recordAttempt(ws.workspaceId, delivery.id, claim, entry, { status: 'success' }))).toEqual({
      requests: 1,
      writeUnits: 1,
      indexWriteUnits: 0,
    });
  });

  it('delete with no recovery window: the read, one transaction, then the record, one Query, one batch of deletes per 25 versions and a transaction for the list item and the record', async () => {
    const id = (await measure(secrets, put('GONE'))).body.data.id;
    await measure(secrets, put('GONE', 'v2'));
    const deleted = await measure(
      secrets,
      apiEvent('DELETE /api/v1/secrets/{secretId}', {
        token: ws.apiKey,
        pathParameters: { secretId: id },
        query: { recoveryWindowDays: '0' },
      }),
    );
    // The versions go in batches; the list item and the record in one transaction of two deletes (IAM sees DeleteItem,
    // which the workspace partition grants; a batch write there it does not: shared/secrets/purge-store.ts).
    expect(deleted.operations).toEqual(['BatchGetItem', 'TransactWriteItems', 'GetItem', 'Query', 'BatchWriteItem', 'TransactWriteItems']);
    expect(deleted.kms).toBe(0);
    // Billed: the transaction (record and marker over head and path, key item removed, list item, audit entry at 2 WRU,
    // their index writes: the key item leaves GSI1 and GSI4, the record enters GSI2) and the deletes of the versions,
    // the list item and the record.
    expect(deleted.billedWriteUnits).toBeLessThanOrEqual(DELETE_AT_ONCE_WRU);
  });

  it('delete within a recovery window, and restore: the read and one transaction each, no KMS', async () => {
    const id = (await measure(secrets, put('KEPT'))).body.data.id;
    await measure(secrets, put('KEPT', 'v2'));
    const deleted = await measure(
      secrets,
      apiEvent('DELETE /api/v1/secrets/{secretId}', { token: ws.apiKey, pathParameters: { secretId: id } }),
    );
    expect(deleted.operations).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(deleted.billedWriteUnits).toBeLessThanOrEqual(DELETE_KEPT_WRU);
    const restored = await measure(
      secrets,
      apiEvent('POST /api/v1/secrets/{secretId}/restore', { token: ws.apiKey, pathParameters: { secretId: id } }),
    );
    expect(restored.operations).toEqual(['BatchGetItem', 'GetItem', 'GetItem', 'TransactWriteItems']);
    expect(restored.kms).toBe(0);
    expect(restored.billedWriteUnits).toBeLessThanOrEqual(RESTORE_WRU);
  });
});
