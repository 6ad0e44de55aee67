import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { ulid } from 'ulid';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';

/**
 * A document client whose every command is recorded and answered `{}` unless a test says otherwise, for the store
 * tests of the webhooks feature: what each store method sends is what they check.
 */
export function mockedDb() {
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
  const dynamodb = mockClient(doc);
  return { db: { doc, tableName: 'T' }, dynamodb };
}

export const WS = 'ws_01JX0000000000000000000000';
export const WE = 'we_01JX0000000000000000000000';
/** The start of the hour of `CREATED`, in seconds (a TTL's unit). */
export const HOUR_START = Date.parse('2026-11-26T09:00:00.000Z') / 1000;
/** A delivery created at 09:41:07.123, in the bucket 09:40 to 09:42: its changes are late from 09:42:15. */
export const CREATED = Date.parse('2026-11-26T09:41:07.123Z');
export const DELIVERY = `whd_${ulid(CREATED)}`;
export const CUTOFF = Date.parse('2026-11-26T09:42:15.000Z');

/** An audit entry as a store writes it beside its change. */
export const audit = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  id: 'aud_01',
  action: 'webhook_delivery.retry',
  actorSub: 'key_x',
  target: DELIVERY,
  metadata: {},
  createdAt: '2026-11-28T10:00:00.000Z',
  accountId: 'acc_x',
  ...overrides,
});

/** What DynamoDB throws when a write's condition does not hold. */
export const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

/** What DynamoDB throws when the condition of a transaction's item `index` does not hold. */
export const transactionFailedAt = (index: number, items = index + 1) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: Array.from({ length: items }, (_, i) => ({ Code: i === index ? 'ConditionalCheckFailed' : 'None' })),
  });
