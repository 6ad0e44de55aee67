import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { freePort, startDynamoDbLocal } from '../bin/local/dynamodb.ts';
import { ensureTable } from '../bin/local/table.ts';
import { makeDocumentClient } from '../shared/clients/dynamodb.ts';
import { iso } from '../shared/clock.ts';
import { signingSecretContext } from '../shared/crypto/context.ts';
import { makeCipher } from '../shared/crypto/envelope.ts';
import { makeLocalKeyring } from '../shared/crypto/local-keyring.ts';
import { newId } from '../shared/ids.ts';
import { makeStore } from '../shared/store/index.ts';
import { ENTITY } from '../shared/store/keys.ts';
import type { DeliveryMessage } from '../shared/webhooks/delivery-queue.ts';
import { makeFanout } from '../shared/webhooks/fanout.ts';
import { newSigningSecret, secretHint } from '../shared/webhooks/signature.ts';
import { makeWorker } from '../shared/webhooks/worker.ts';
import { itemSize, writeUnits } from '../test/support/item-size.ts';
import { PRICES } from './prices.ts';

/**
 * `node bench/webhook-cost.ts`: the DynamoDB, SQS and KMS requests of one webhook delivery on the happy path (one
 * endpoint, the first attempt succeeds), with the size of every item written as DynamoDB Local holds it before and
 * after each write, and the units AWS bills for them (table and each GSI the item is in, projection ALL).
 */

type Row = { fn: 'fan-out' | 'worker'; operation: string; what: string; bytes: string; units: number; kind: 'WCU' | 'RCU' | 'SQS' | 'KMS' };

const GSIS = [['GSI1PK', 'GSI1SK'], ['GSI2PK', 'GSI2SK']] as const;

/** Units of one write: the table at the larger image, then each index by its own rule (key change: delete + put). */
function writeCost(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): { units: number; detail: string } {
  const b = before ? itemSize(before) : 0;
  const a = after ? itemSize(after) : 0;
  let units = writeUnits(Math.max(a, b));
  const parts = [`table ${writeUnits(Math.max(a, b))}`];
  for (const [pk, sk] of GSIS) {
    const was = before?.[pk] !== undefined;
    const is = after?.[pk] !== undefined;
    const moved = was && is && (before![pk] !== after![pk] || before![sk] !== after![sk]);
    const index = (was ? writeUnits(b) : 0) * (moved || (was && !is) ? 1 : 0) + (is ? writeUnits(a) : 0);
    if (index > 0) parts.push(`${pk.slice(0, 4)} ${index}${moved ? ' (keys moved)' : was && !is ? ' (left)' : !was ? ' (joined)' : ''}`);
    units += index;
  }
  return { units, detail: parts.join(' + ') };
}

/**
 * The Lambda share, which the local stack cannot measure for AWS: full batches (100 stream records, 10 messages),
 * the fan-out's time per record, and the worker's invocation time (the slowest of its parallel attempts: DynamoDB
 * and the receiver's answer, here 100 ms, plus a TLS handshake).
 */
export const LAMBDA_ASSUMPTIONS = { fanoutBatch: 100, fanoutMsPerRecord: 8, workerBatch: 10, workerInvocationMs: 150, memoryMb: 512 };

export function lambdaPerMillion(a: typeof LAMBDA_ASSUMPTIONS): number {
  const gbSeconds = (ms: number) => (a.memoryMb / 1024) * (ms / 1000) * PRICES.lambdaArmGbSecond;
  const perDelivery = PRICES.lambdaRequest / a.fanoutBatch + gbSeconds(a.fanoutMsPerRecord) + PRICES.lambdaRequest / a.workerBatch + gbSeconds(a.workerInvocationMs) / a.workerBatch;
  return perDelivery * 1e6;
}

export async function measureDeliveryCost(): Promise<{ rows: Row[]; perMillion: Record<string, number> }> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-cost-'));
  const dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir: null });
  try {
    const tableName = 'cost';
    await ensureTable(new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), tableName);
    const raw = makeDocumentClient({ endpoint: dynamo.endpoint });
    const rows: Row[] = [];
    let fn: Row['fn'] = 'fan-out';
    const read = async (key: Record<string, unknown>) => (await raw.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
    // A document client that looks at each item before and after every single-item write the pipeline makes.
    const observed = {
      async send(command: { constructor: { name: string }; input: Record<string, any> }) {
        const name = command.constructor.name.replace(/Command$/, '');
        const key = command.input.Key ?? (command.input.Item && { PK: command.input.Item.PK, SK: command.input.Item.SK });
        const before = key && ['Put', 'Update', 'Delete'].includes(name) ? await read(key) : undefined;
        const out = await raw.send(command as never).catch((error: Error) => error);
        if (['Put', 'Update', 'Delete'].includes(name)) {
          const after = await read(key);
          const cost = writeCost(before, after);
          rows.push({ fn, operation: `${name}Item`, what: String(key.SK).split('#')[0]!, bytes: `${before ? itemSize(before) : '-'} → ${after ? itemSize(after) : '-'}`, units: cost.units, kind: 'WCU' });
          rows[rows.length - 1]!.what += `: ${cost.detail}${out instanceof Error ? ` (${out.name})` : ''}`;
        } else if (name === 'Get') {
          const item = (out as { Item?: Record<string, unknown> }).Item;
          const size = item ? itemSize(item) : 0;
          rows.push({ fn, operation: 'GetItem', what: String(key.SK).split('#')[0]!, bytes: String(size), units: Math.max(1, Math.ceil(size / 4096)) * (command.input.ConsistentRead ? 1 : 0.5), kind: 'RCU' });
        } else if (name === 'Query') {
          const items = (out as { Items?: Record<string, unknown>[] }).Items ?? [];
          const size = items.reduce((sum, item) => sum + itemSize(item), 0);
          rows.push({ fn, operation: 'Query', what: `${items.length} item(s)`, bytes: String(size), units: Math.max(1, Math.ceil(size / 4096)) * (command.input.ConsistentRead ? 1 : 0.5), kind: 'RCU' });
        } else rows.push({ fn, operation: name, what: '', bytes: '', units: 0, kind: 'WCU' });
        if (out instanceof Error) throw out;
        return out;
      },
    };
    const seedStore = makeStore(raw, tableName);
    const store = makeStore(observed as never, tableName);
    let kmsCalls = 0;
    const keyring = makeLocalKeyring({ keyFile: join(dir, 'keyring') });
    const keys = { ...keyring, decryptDataKey: (...args: Parameters<typeof keyring.decryptDataKey>) => (kmsCalls++, keyring.decryptDataKey(...args)) };
    const cipher = makeCipher({ keys, dataKeyCache: { maxEntries: 10, ttlMs: 300_000 } });

    // A workspace's endpoint as the API registers it, and a secret.create audit entry as the secrets service writes it.
    const now = Date.now();
    const workspaceId = newId('workspace', now);
    const endpointId = newId('webhookEndpoint', now);
    const secret = newSigningSecret();
    const endpoint = {
      id: endpointId, url: 'https://hooks.example.com/webhooks/secrets-service', events: ['service.secret.create', 'service.secret.rotate'], description: 'Production deploy hook',
      enabled: true, secretHint: secretHint(secret), createdAt: iso(now), updatedAt: iso(now), disabledAt: null, disabledReason: null,
      consecutiveFailures: 0, failingSince: null, accountId: newId('account', now),
      sealedSecret: await cipher.encrypt(secret, signingSecretContext(workspaceId, endpointId)),
    };
    await seedStore.createEndpoint(workspaceId, endpoint, { id: newId('audit', now), action: 'webhook_endpoint.create', actorSub: newId('apiKey', now), target: endpointId, metadata: {}, createdAt: iso(now) });
    const audit = {
      type: ENTITY.audit, workspaceId, id: newId('audit', now), action: 'secret.create', actorSub: newId('apiKey', now), target: newId('secret', now),
      metadata: { key: 'DATABASE_URL', version: 1, projectId: newId('project', now), environmentId: newId('environment', now), credentialKind: 'api_key' },
      createdAt: iso(now), accountId: endpoint.accountId,
    };
    const record: DynamoDBRecord = { eventName: 'INSERT', dynamodb: { NewImage: marshall(audit) as never, SequenceNumber: '1' } };

    const messages: DeliveryMessage[] = [];
    let sqsSends = 0;
    const log = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined } as never;
    const fanout = makeFanout({ store, enqueueAll: async (queued) => (messages.push(...queued), []), log });
    await fanout([record]);
    rows.push({ fn, operation: 'SendMessageBatch', what: 'ten deliveries a request', bytes: '', units: 0.1, kind: 'SQS' });

    fn = 'worker';
    const metrics = { attempt: () => undefined, retryScheduled: () => undefined, exhausted: () => undefined, autoDisabled: () => undefined, dropped: () => undefined, flush: () => undefined };
    const work = makeWorker({
      store, cipher, clock: { now: () => Date.now() }, timeScale: 1, metrics, log,
      send: async () => ({ ok: true, statusCode: 204, durationMs: 87, error: null }),
      enqueue: async () => void sqsSends++,
    });
    for (const message of messages) await work(message);
    rows.push({ fn, operation: 'ReceiveMessage (event source)', what: 'one per batch of 10', bytes: '', units: 0.1, kind: 'SQS' });
    rows.push({ fn, operation: 'DeleteMessageBatch (event source)', what: 'one per batch of 10', bytes: '', units: 0.1, kind: 'SQS' });
    rows.push({ fn, operation: 'KMS Decrypt', what: `${kmsCalls} cold; data key cached 5 min per endpoint`, bytes: '', units: 0, kind: 'KMS' });

    const sum = (kind: Row['kind']) => rows.filter((row) => row.kind === kind).reduce((total, row) => total + row.units, 0);
    const perMillion = {
      dynamoWrites: sum('WCU') * PRICES.dynamoWriteUnit * 1e6,
      dynamoReads: sum('RCU') * PRICES.dynamoReadUnit * 1e6,
      sqs: sum('SQS') * PRICES.sqsRequest * 1e6,
      lambda: lambdaPerMillion(LAMBDA_ASSUMPTIONS),
    };
    return { rows, perMillion };
  } finally {
    await dynamo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, perMillion } = await measureDeliveryCost();
  const price = { WCU: PRICES.dynamoWriteUnit, RCU: PRICES.dynamoReadUnit, SQS: PRICES.sqsRequest, KMS: PRICES.kmsRequest };
  process.stdout.write('| function | request | item bytes (before → after) | units | $ per million | billed as |\n|---|---|---|---|---|---|\n');
  for (const row of rows) {
    process.stdout.write(`| ${row.fn} | ${row.operation} | ${row.bytes} | ${row.units} ${row.kind} | ${(row.units * price[row.kind] * 1e6).toFixed(3)} | ${row.what} |\n`);
  }
  const total = Object.values(perMillion).reduce((sum, value) => sum + value, 0);
  process.stdout.write(`\n${JSON.stringify({ ...perMillion, total, lambdaAssumptions: LAMBDA_ASSUMPTIONS }, (_, v) => (typeof v === 'number' ? Math.round(v * 1000) / 1000 : v))}\n`);
}
