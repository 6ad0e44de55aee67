import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { IDEMPOTENT_ANSWER_CONTEXT, SECRET_VALUE_CONTEXT, SIGNING_SECRET_CONTEXT } from '../shared/crypto/context.ts';
import type { PipelineFunction } from '../shared/functions.ts';
import type { RouteGroup } from '../shared/routes.ts';
import type { KeyAccess, ServiceFunction, TableAccess, TableAction } from './service-function.ts';

/**
 * What each function may do, in one place. Every entry lists the exact calls its code makes (see the access
 * patterns of the README's single-table design); a transaction needs the action of each item it writes.
 */

/**
 * Every API function authenticates with one BatchGetItem (token, workspace, the route's prefetch keys), reads or
 * creates the cursor-signing item (GetItem, PutItem), may record an access key's lastUsedAt (UpdateItem in a
 * transaction) and lists with Query.
 */
const API_COMMON: readonly TableAction[] = ['BatchGetItem', 'GetItem', 'PutItem', 'UpdateItem', 'Query'];

export interface FunctionAccess {
  /** @default no table access at all */
  readonly table?: TableAccess;
  /** Uses of the KMS key, each under its own encryption context. */
  readonly keys?: readonly KeyAccess[];
  /** Queues delivery attempts: sqs:SendMessage on the delivery queue, whose URL goes into its environment. */
  readonly sendsDeliveries?: true;
}

/** Sealing and opening recorded answers that carry a one-time secret (a token, a signing secret). */
const IDEMPOTENT_ANSWER_KEY: KeyAccess = { actions: ['kms:GenerateDataKey', 'kms:Decrypt'], contextKeys: IDEMPOTENT_ANSWER_CONTEXT };

export const ROUTE_GROUP_ACCESS: Record<RouteGroup, FunctionAccess> = {
  // Creating an environment checks that its project exists in the same transaction.
  projects: { table: { actions: [...API_COMMON, 'ConditionCheckItem'] } },
  environments: { table: { actions: [...API_COMMON, 'ConditionCheckItem'] } },
  // Deletes remove the head items in a transaction, then purge versions in batches; search reads GSI1. Loading an
  // environment writes its page's secret.reveal entries with BatchWriteItem: the one role whose audit Deny cannot
  // include that action (see ServiceFunction.denyAuditChanges). The first load of an environment older than its value
  // items gives them their items, each checked against its head (ConditionCheckItem).
  secrets: {
    table: { actions: [...API_COMMON, 'DeleteItem', 'BatchWriteItem', 'ConditionCheckItem'], indexQueries: ['GSI1'], batchWritesAudit: true },
    keys: [{ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], contextKeys: SECRET_VALUE_CONTEXT }],
  },
  audit: { table: { actions: API_COMMON } },
  // A replayed creation (Idempotency-Key) answers the token again: its recorded answer is sealed and opened.
  'access-keys': { table: { actions: API_COMMON }, keys: [IDEMPOTENT_ANSWER_KEY] },
  // Registration encrypts the signing secret (never decrypts it); deleting an endpoint deletes its delivery log
  // (GSI3, and GSI1 for deliveries made before GSI3) in batches, and pausing it fails its queued deliveries.
  webhooks: {
    table: { actions: [...API_COMMON, 'DeleteItem', 'BatchWriteItem'], indexQueries: ['GSI1', 'GSI3'] },
    keys: [{ actions: ['kms:GenerateDataKey'], contextKeys: SIGNING_SECRET_CONTEXT }, IDEMPOTENT_ANSWER_KEY],
  },
  // A manual retry queues one attempt now; an endpoint's delivery log is read from GSI3 (its records from the table).
  'webhook-deliveries': { table: { actions: API_COMMON, indexQueries: ['GSI3'] }, sendsDeliveries: true },
  // Serves the API description bundled into it: no table, no key, no queue.
  openapi: {},
};

export const PIPELINE_ACCESS: Record<PipelineFunction, FunctionAccess> = {
  // Lists the workspace's endpoints and puts one delivery per subscriber (conditional put), then queues it.
  // Creates deliveries (PutItem); hands a first attempt whose message could not be queued to the sweeper (UpdateItem).
  'webhook-fanout': { table: { actions: ['Query', 'PutItem', 'UpdateItem'] }, sendsDeliveries: true },
  // Reads the delivery and endpoint, claims and records attempts (UpdateItem), writes the auto-disable audit entry
  // (PutItem), fails an auto-disabled endpoint's queued deliveries (found on GSI3, and GSI1 for deliveries made
  // before GSI3, their status read with BatchGetItem); decrypts signing secrets to sign.
  'delivery-worker': {
    table: { actions: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem'], indexQueries: ['GSI1', 'GSI3'] },
    keys: [{ actions: ['kms:Decrypt'], contextKeys: SIGNING_SECRET_CONTEXT }],
    sendsDeliveries: true,
  },
  // Finds overdue pending deliveries on the sparse GSI2 and swaps their attempt token before re-queueing; finds
  // interrupted secret purges there too and finishes them (Query the version partition, BatchWriteItem deletes).
  'delivery-sweeper': { table: { actions: ['UpdateItem', 'Query', 'BatchWriteItem'], indexQueries: ['GSI2'] }, sendsDeliveries: true },
};

/** What `applyAccess` grants on: the table, the KMS key and the delivery queue. */
export interface AccessTargets {
  readonly table: ITable;
  readonly key: IKey;
  readonly deliveries: { bindSender(fn: ServiceFunction): void };
}

/** Grants `fn` exactly what `access` lists, and sets the environment variables that go with each grant. */
export function applyAccess(fn: ServiceFunction, access: FunctionAccess, targets: AccessTargets): void {
  // Every role, with table access or not, carries the audit deny: a grant added later cannot forget it.
  fn.denyAuditChanges(targets.table, access.table?.batchWritesAudit === true);
  if (access.table) fn.bindTable(targets.table, access.table);
  for (const keyAccess of access.keys ?? []) fn.bindKey(targets.key, keyAccess);
  if (access.sendsDeliveries) targets.deliveries.bindSender(fn);
}
