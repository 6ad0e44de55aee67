import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { FunctionAccess } from './access.ts';
import type { ServiceFunction } from './service-function.ts';
import { checkAccess } from './table-access.ts';

/** A queue a function may be let to send to (its URL goes into the function's environment). */
export interface QueueSender {
  bindSender(fn: ServiceFunction): void;
}

/** The audit digest key, whose public key a function may be let to read (lib/audit-digests.ts). */
export interface DigestKeyReader {
  bindPublicKeyReader(fn: ServiceFunction): void;
}

/** What `applyAccess` grants on: the table, the KMS key, the delivery, rotation, sync and audit stream queues, and the digest key. */
export interface AccessTargets {
  readonly table: ITable;
  readonly key: IKey;
  /** @default none: an access that sends deliveries is refused */
  readonly deliveries?: QueueSender;
  /** @default none: an access that sends rotation steps is refused */
  readonly rotations?: QueueSender;
  /** @default none: an access that sends sync pushes is refused */
  readonly syncs?: QueueSender;
  /** @default none: an access that sends audit stream messages is refused */
  readonly auditStreams?: QueueSender;
  /** @default none: an access that reads the digest public key is refused */
  readonly digestKey?: DigestKeyReader;
}

/** Grants `fn` exactly what `access` lists, and sets the environment variables that go with each grant. */
export function applyAccess(fn: ServiceFunction, access: FunctionAccess, targets: AccessTargets): void {
  // Every role, with table access or not, carries the table's Denies: a grant added later cannot forget them.
  fn.denyTableChanges(targets.table, access.table);
  if (access.table) {
    checkAccess(fn.node.id, access.table);
    fn.bindTable(targets.table, access.table);
  }
  for (const keyAccess of access.keys ?? []) fn.bindKey(targets.key, keyAccess);
  if (access.sendsDeliveries) senderOf(targets.deliveries, fn, 'delivery').bindSender(fn);
  if (access.sendsRotations) senderOf(targets.rotations, fn, 'rotation').bindSender(fn);
  if (access.sendsSyncs) senderOf(targets.syncs, fn, 'sync').bindSender(fn);
  if (access.sendsAuditStreams) senderOf(targets.auditStreams, fn, 'audit stream').bindSender(fn);
  if (access.readsDigestPublicKey) {
    if (!targets.digestKey) throw new Error(`${fn.node.id}: its access reads the audit digest key, which was not given`);
    targets.digestKey.bindPublicKeyReader(fn);
  }
}

function senderOf(queue: QueueSender | undefined, fn: ServiceFunction, name: string): QueueSender {
  if (!queue) throw new Error(`${fn.node.id}: its access sends to the ${name} queue, which was not given`);
  return queue;
}
