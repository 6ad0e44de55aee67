import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { FunctionAccess } from './access.ts';
import type { ServiceFunction } from './service-function.ts';
import { checkAccess } from './table-access.ts';

/** What `applyAccess` grants on: the table, the KMS key and the delivery queue. */
export interface AccessTargets {
  readonly table: ITable;
  readonly key: IKey;
  readonly deliveries: { bindSender(fn: ServiceFunction): void };
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
  if (access.sendsDeliveries) targets.deliveries.bindSender(fn);
}
