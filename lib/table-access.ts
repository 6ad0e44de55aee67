import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { ID_PREFIXES, type IdKind } from '../shared/platform/ids.ts';
import { keys, patterns } from '../shared/platform/store/keys.ts';
import { TABLE_DEFINITION, type GsiName } from '../shared/platform/store/table.ts';

/**
 * What a function may do on the table, item by item: each grant names the partition keys its requests may touch
 * (`dynamodb:LeadingKeys`), and the Denies every role carries name what no grant may reach. docs/operations.md,
 * "What IAM enforces on the table, and what does the rest", explains what IAM can and cannot tell apart here.
 */

/** DynamoDB item actions a function may be granted (each item of a transaction is authorised as one of these). */
export type TableAction =
  | 'BatchGetItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem'
  | 'DeleteItem'
  | 'GetItem'
  | 'PutItem'
  | 'Query'
  | 'UpdateItem';

/** An UpdateItem that may name only these attributes (besides the table's keys), on these partitions. */
export interface AttributeUpdate {
  readonly partitions: readonly string[];
  readonly attributes: readonly string[];
}

/** What a function may do on the table. */
export interface TableAccess {
  /** Per item action on the table, the partition-key patterns every item a request names must match. */
  readonly items: Partial<Record<TableAction, readonly string[]>>;
  /** UpdateItems limited to some attributes (`dynamodb:Attributes`), beside the unlimited ones of `items`. */
  readonly attributeUpdates?: readonly AttributeUpdate[];
  /** Query on an index: per index, the patterns of the index's own partition key. @default no index */
  readonly indexQueries?: Partial<Record<GsiName, readonly string[]>>;
  /** Puts audit entries (always conditional): without it, PutItem on an audit partition is denied. */
  readonly writesAudit?: true;
  /** Creates credential items (`TOKEN#…`): without it, putting one is denied. */
  readonly createsCredentials?: true;
  /** Changes credential items in full (revoke, rules): without it, changing more than their lastUsedAt is denied. */
  readonly changesCredentials?: true;
}

/** The characters of a ULID, the part of every id after its prefix (shared/platform/ids.ts). */
const ULID_LENGTH = 26;

/**
 * One id of `kind` as IAM's StringLike spells it: its prefix and one `?` (exactly one character) per ULID
 * character. A `*` would also match `#`, and so `WS#*` would reach every partition whose key starts with a
 * workspace's (`WS#<ws>#AUDIT`, `WS#<ws>#SEC#<id>`, `WS#<ws>#WHD`); the exact length tells them apart.
 */
export function anyId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${'?'.repeat(ULID_LENGTH)}`;
}

const WS = anyId('workspace');
const ENDPOINT = anyId('webhookEndpoint');

/** The table's partitions the functions reach, spelled by the keys module itself (`dynamodb:LeadingKeys` patterns). */
export const PARTITIONS = {
  /**
   * `WS#<ws>`: the workspace record, projects, environments, secret heads, paths and key items (a deleted secret's
   * record and path marker in place of its head and path), webhook endpoints, counters, and the records of access keys
   * (`AK#`) and API keys (`APIKEY#`): IAM sees only this partition key, never the sort key, so it cannot tell a
   * credential record from a project here.
   */
  workspace: keys.workspace(WS).PK,
  /** `WS#<ws>#AUDIT`: the audit log. */
  audit: keys.audit(WS, '').PK,
  /** `WS#<ws>#SEC#<sec>`: a secret's versions (and the deleted record of a delete before v1.4). */
  secretVersions: keys.secretVersion(WS, anyId('secret'), 0).PK,
  /** `WS#<ws>#WHD`: the workspace's webhook deliveries. */
  deliveries: keys.delivery(WS, '').PK,
  /** `TOKEN#<hash>`: the credential items authentication reads (API keys and access keys alike). */
  token: keys.token('*').PK,
  /** `AKID#<ak>`: an access key's workspace by the key's id, what a login reads first. */
  accessKeyById: keys.accessKeyById(anyId('accessKey')).PK,
  /** `LOGINS#<ws>#<ak>`: the hashes of an access key's live login tokens, by expiry. */
  loginTokens: patterns.loginTokensOfAccessKey(WS, anyId('accessKey')).pk,
  /** `RATE#<ws>#<credential>`: reveals counted per credential and minute, and an access key's logins. */
  credentialRevealCounter: keys.revealCounter(WS, '*', 0).PK,
  /** `DENIED#<ws>#<credential>`: denied attempts counted between their `access.denied` audit entries. */
  deniedAttempts: keys.deniedAttempts(WS, '*', '').PK,
  /** `RATE#<ws>`: reveals counted per workspace and minute. */
  workspaceRevealCounter: keys.workspaceRevealCounter(WS, 0).PK,
  /** `IDEM#<ws>#<credential>`: idempotency records. */
  idempotency: keys.idempotency(WS, '*', '').PK,
  /** `SYSTEM`: the cursor-signing key, made by the first function that hands out a cursor. */
  cursorKey: keys.cursorSigningKey().PK,
  /** `SYSTEM#MAC_KEY`: the sealed service MAC key; made by the admin CLI, only ever read by the functions. */
  macKey: keys.macKey().PK,
} as const;

/** Index partitions: for a Query on an index, `dynamodb:LeadingKeys` is the index's partition key. */
export const INDEX_PARTITIONS = {
  /** GSI1 `SECRETS#<ws>`: search. */
  workspaceSecrets: patterns.secretsByWorkspace(WS).pk,
  /** GSI1 `DELETED#<ws>`: the deleted secrets still restorable (ListSecrets with IncludePlannedDeletion). */
  deletedSecrets: patterns.deletedSecretsByWorkspace(WS).pk,
  /** GSI4 `ESEC#<ws>#<env>`: an environment's secrets, newest first (search by a scoped credential). */
  environmentSecrets: patterns.secretsOfEnvironment(WS, '*').pk,
  /** GSI1 `CRS#<ws>#<env>`: an environment's change requests. */
  changeRequests: patterns.changeRequestsByEnvironment(WS, '*').pk,
  /** GSI3 `WHE#<we>`: an endpoint's delivery log. */
  endpointLog: patterns.deliveriesByEndpoint(ENDPOINT).pk,
  /** GSI1 `WHE#<we>`: the log of deliveries made before GSI3. */
  legacyEndpointLog: patterns.legacyDeliveriesByEndpoint(ENDPOINT).pk,
  /** GSI2 `DUE#0` … `DUE#3`: pending deliveries by due time, every shard. */
  dueDeliveries: patterns.dueDeliveryShards().map((shard) => shard.pk),
  /** GSI2 `PURGE`: interrupted secret purges. */
  pendingPurges: patterns.pendingPurges().pk,
  /** GSI2 `WORKSPACES`: every workspace's id, what the audit digester walks. */
  allWorkspaces: patterns.allWorkspaces().pk,
  /** GSI2 `RECOVERY`: recoveries of failed deliveries still running. */
  runningRecoveries: patterns.runningRecoveries().pk,
  /** GSI4 `<we>`: an endpoint's failed deliveries (what a recovery counts and pages through). */
  failedDeliveries: patterns.failedDeliveriesOfEndpoint(ENDPOINT).pk,
} as const;

/** What the Denies name: patterns that match a key of any shape, so no id format can slip past them. */
export const DENIED = {
  audit: keys.audit('*', '').PK,
  token: keys.token('*').PK,
  macKey: keys.macKey().PK,
} as const;

/** The only attribute of a credential item a function other than the credential writer may change. */
export const TOKEN_LAST_USED = 'lastUsedAt';

const TABLE_KEYS = [TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey];
const leadingKeys = (partitions: readonly string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] } });
const anyLeadingKey = (partitions: readonly string[]) => ({ 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [...partitions] } });
const dynamodb = (actions: readonly string[]) => actions.map((action) => `dynamodb:${action}`);

/**
 * The Allow statements of `access`: one per set of partitions (the actions that reach the same partitions share
 * it), one per attribute-limited update, one per index. Every one is conditioned on `dynamodb:LeadingKeys` with
 * `ForAllValues` (every item a request names must match), so nothing reaches a partition its function does not list.
 */
export function allowStatements(table: ITable, access: TableAccess): PolicyStatement[] {
  const byPartitions = new Map<string, { partitions: string[]; actions: TableAction[] }>();
  for (const [action, partitions] of Object.entries(access.items) as [TableAction, readonly string[]][]) {
    const sorted = [...partitions].sort();
    const group = byPartitions.get(sorted.join('\n')) ?? { partitions: sorted, actions: [] };
    group.actions.push(action);
    byPartitions.set(sorted.join('\n'), group);
  }
  const items = [...byPartitions.values()].map(
    ({ partitions, actions }) =>
      new PolicyStatement({ actions: dynamodb(actions), resources: [table.tableArn], conditions: leadingKeys(partitions) }),
  );
  const updates = (access.attributeUpdates ?? []).map(
    ({ partitions, attributes }) =>
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: {
          ...leadingKeys([...partitions].sort()),
          // The keys must be listed too, or DynamoDB cannot use them (IAM guide, fine-grained access control).
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...TABLE_KEYS, ...attributes] },
          // No answer with attributes beyond those: ALL_OLD and ALL_NEW would read the whole item.
          StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
        },
      }),
  );
  const indexes = (Object.entries(access.indexQueries ?? {}) as [GsiName, readonly string[]][]).map(
    ([indexName, partitions]) =>
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${table.tableArn}/index/${indexName}`],
        conditions: leadingKeys([...partitions].sort()),
      }),
  );
  return [...items, ...updates, ...indexes];
}

/**
 * The Denies of a role, whatever it is allowed (an Allow added later cannot undo them): no one changes or removes
 * an audit entry; no one writes the MAC key; only the audit writers put into an audit partition; only the
 * credential writers create a credential item (access keys, logins), and only the access-keys function changes
 * anything of one but its lastUsedAt. `ForAnyValue`: a
 * request that names a single such item (a batch, say) is refused whole.
 */
export function denyStatements(table: ITable, access: TableAccess | undefined): PolicyStatement[] {
  const deny = (sid: string, actions: string[], partitions: string[], more: Record<string, unknown> = {}) =>
    new PolicyStatement({
      sid,
      effect: Effect.DENY,
      actions: dynamodb(actions),
      resources: [table.tableArn],
      conditions: { ...anyLeadingKey(partitions), ...more },
    });
  const statements = [
    deny('AuditEntriesAreImmutable', ['UpdateItem', 'DeleteItem', 'BatchWriteItem'], [DENIED.audit]),
    deny('MacKeyIsReadOnly', ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], [DENIED.macKey]),
  ];
  if (!access?.writesAudit) statements.push(deny('OnlyAuditWritersPutAuditEntries', ['PutItem'], [DENIED.audit]));
  if (!access?.createsCredentials)
    statements.push(deny('OnlyTheCredentialWriterCreatesCredentials', ['PutItem', 'BatchWriteItem'], [DENIED.token]));
  if (!access?.changesCredentials) {
    statements.push(
      deny('CredentialsChangeOnlyByLastUse', ['UpdateItem'], [DENIED.token], {
        'ForAnyValue:StringNotEquals': { 'dynamodb:Attributes': [...TABLE_KEYS, TOKEN_LAST_USED] },
      }),
    );
  }
  return statements;
}

/**
 * Throws when `access` contradicts its own Denies (an audit put without `writesAudit`, a credential put without
 * `createsCredentials`: refused in AWS, while DynamoDB Local, which ignores IAM, lets it pass), or lifts a Deny it
 * has no use for (a flag without the put it stands for).
 */
export function checkAccess(name: string, access: TableAccess): void {
  const puts = access.items.PutItem ?? [];
  const fail = (reason: string) => {
    throw new Error(`${name}: ${reason}`);
  };
  if (puts.includes(PARTITIONS.audit) !== (access.writesAudit === true)) fail('writesAudit must be set exactly when it puts audit entries');
  if (puts.includes(PARTITIONS.token) !== (access.createsCredentials === true))
    fail('createsCredentials must be set exactly when it puts credential items');
  if ((access.items.UpdateItem ?? []).includes(PARTITIONS.token) !== (access.changesCredentials === true)) {
    fail('changesCredentials must be set exactly when it updates credential items in full');
  }
  if (access.items.BatchWriteItem?.some((partition) => partition === PARTITIONS.audit || partition === PARTITIONS.token)) {
    fail('audit and credential items are never batch-written (a batch put cannot be conditional)');
  }
  if (Object.values(access.items).some((partitions) => partitions.length === 0)) fail('an action with no partition');
}
