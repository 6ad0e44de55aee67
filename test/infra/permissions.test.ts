import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import {
  canonical,
  FUNCTION_NAMES,
  type FunctionName,
  functionsOf,
  idOf,
  makeOutdir,
  only,
  secretsKeyOf,
  type Resource,
  type Statement,
  statementsOf,
  synth,
} from './synth.ts';

/** One id as the grants spell it: `?` is one character, so the pattern is exactly as long as the prefix and a ULID. */
const ANY_ID = '?'.repeat(26);
/** The partitions the grants name, written out here independently of lib/table-access.ts. */
const WS = `WS#ws_${ANY_ID}`;
const AUDIT = `${WS}#AUDIT`;
const VERSIONS = `${WS}#SEC#sec_${ANY_ID}`;
const DELIVERIES = `${WS}#WHD`;
const TOKEN = 'TOKEN#*';
const IDEM = `IDEM#ws_${ANY_ID}#*`;
const RATE = [`RATE#ws_${ANY_ID}`, `RATE#ws_${ANY_ID}#*`];
const CURSOR_KEY = 'SYSTEM';
const MAC_KEY = 'SYSTEM#MAC_KEY';
const ENDPOINT_LOG = `WHE#we_${ANY_ID}`;
const FAILED_LIST = `we_${ANY_ID}`;
const ACCESS_KEY_BY_ID = `AKID#ak_${ANY_ID}`;
const LOGIN_TOKENS = `LOGINS#ws_${ANY_ID}#ak_${ANY_ID}`;
const SECRET_VALUE_CONTEXT = ['workspaceId', 'secretId', 'version'];
const PROPOSED_VALUE_CONTEXT = ['workspaceId', 'changeRequestId', 'key'];
const SIGNING_SECRET_CONTEXT = ['workspaceId', 'endpointId'];
const IDEMPOTENT_ANSWER_CONTEXT = ['workspaceId', 'idempotencyRecord'];
const AWS_KEY_CONTEXT = ['workspaceId', 'accessKeyId'];
const SYNC_TOKEN_CONTEXT = ['workspaceId', 'syncId'];
const AUDIT_STREAM_CREDENTIAL_CONTEXT = ['workspaceId', 'auditStreamId', 'credential'];

type Items = Record<string, string[]>;

/** Action by action, the partitions of every part. */
function merge(...parts: Items[]): Items {
  const merged: Items = {};
  for (const part of parts)
    for (const [action, partitions] of Object.entries(part)) merged[action] = [...new Set([...(merged[action] ?? []), ...partitions])];
  return merged;
}

/**
 * What every API function does besides its own work: authentication (BatchGetItem of token and workspace, GetItem of
 * the token alone on the reveal routes, GetItem of the MAC key), cursors (the signing key: GetItem, PutItem) and,
 * with a route that changes state, idempotency records (GetItem, PutItem, UpdateItem).
 */
const api = (own: Items, idempotent = true): Items =>
  merge(
    { BatchGetItem: [TOKEN, WS], GetItem: [TOKEN, MAC_KEY, CURSOR_KEY], PutItem: [CURSOR_KEY] },
    idempotent ? { GetItem: [IDEM], PutItem: [IDEM], UpdateItem: [IDEM] } : {},
    own,
  );

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;
/** Builders of the statements this stack should contain, from the template's own logical ids. */
let expectedFor: (name: FunctionName) => Statement[];

beforeAll(async () => {
  outdir = await makeOutdir('infra-permissions-');
  // Act
  ({ stack, template } = synth(outdir.dir));
  expectedFor = expectations();
});

afterAll(async () => {
  await outdir.cleanup();
});

/** The exact statements of each function, written out here independently of lib/access.ts. */
function expectations(): (name: FunctionName) => Statement[] {
  const [tableId] = only(template, 'AWS::DynamoDB::Table');
  const [keyId] = secretsKeyOf(template, stack);
  const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
  const queueArn = { 'Fn::GetAtt': [idOf(stack, stack.delivery.queue), 'Arn'] };
  const allow = (Action: string[], Resource: unknown, Condition?: unknown): Statement => ({
    Effect: 'Allow',
    Action,
    Resource,
    ...(Condition !== undefined && { Condition }),
  });
  const leadingKeys = (partitions: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions].sort() } });
  /** One statement per set of partitions, as the grants group their actions. */
  const table = (items: Items): Statement[] => {
    const groups = new Map<string, string[]>();
    for (const [action, partitions] of Object.entries(items)) {
      const key = [...partitions].sort().join(' ');
      groups.set(key, [...(groups.get(key) ?? []), `dynamodb:${action}`]);
    }
    return [...groups].map(([key, actions]) => allow(actions, tableArn, leadingKeys(key.split(' '))));
  };
  /** UpdateItem naming only `attributes` (and the keys), answering nothing beyond them. */
  const updatesOnly = (partitions: string[], attributes: string[]) =>
    allow(['dynamodb:UpdateItem'], tableArn, {
      ...leadingKeys(partitions),
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK', ...attributes] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
    });
  const lastUsed = (partitions: string[]) => updatesOnly(partitions, ['lastUsedAt']);
  const index = (name: string, partitions: string[]) =>
    allow(['dynamodb:Query'], { 'Fn::Join': ['', [tableArn, `/index/${name}`]] }, leadingKeys(partitions));
  const kms = (actions: string[], context: string[], values?: Record<string, string[]>) =>
    allow(
      actions,
      { 'Fn::GetAtt': [keyId, 'Arn'] },
      {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': context },
        Null: Object.fromEntries(context.map((key) => [`kms:EncryptionContext:${key}`, 'false'])),
        ...(values && {
          StringEquals: Object.fromEntries(Object.entries(values).map(([key, value]) => [`kms:EncryptionContext:${key}`, value])),
        }),
      },
    );
  // Unsealing the two MAC roots: Decrypt only under exactly {purpose}, one of their two purposes.
  const macKey = kms(['kms:Decrypt'], ['purpose'], { purpose: ['service-mac-key', 'token-checksum-key'] });
  const send = allow(['sqs:SendMessage'], queueArn);
  const rotationQueueArn = { 'Fn::GetAtt': [idOf(stack, stack.rotation.queue), 'Arn'] };
  // Queues a rotation step: the secrets group and the AWS API start rotations, the runner queues each next step.
  const sendRotation = allow(['sqs:SendMessage'], rotationQueueArn);
  // Queues a sync push: the syncs group (a new sync, run, resume), the fan-out (a change), the worker (its retries).
  const sendSync = allow(['sqs:SendMessage'], { 'Fn::GetAtt': [idOf(stack, stack.syncs.queue), 'Arn'] });
  const sendStream = allow(['sqs:SendMessage'], { 'Fn::GetAtt': [idOf(stack, stack.auditStreams.queue), 'Arn'] });
  const logs = (name: FunctionName) =>
    allow(['logs:CreateLogStream', 'logs:PutLogEvents'], { 'Fn::GetAtt': [idOf(stack, functionsOf(stack)[name].logGroup), 'Arn'] });
  const schedulesIn = (names: string) => ({
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:schedule/${names}`],
    ],
  });
  const schedules = schedulesIn('prod-webhook-retries/*');
  const passRole = (role: Parameters<typeof idOf>[1]) =>
    allow(
      ['iam:PassRole'],
      { 'Fn::GetAtt': [idOf(stack, role), 'Arn'] },
      { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    );
  // What the REST secrets group and the AWS API do to secrets; UpdateItem: the reveal counters, and the counters of
  // denied attempts between their access.denied entries.
  const secretItems = {
    BatchGetItem: [VERSIONS],
    GetItem: [WS, VERSIONS],
    PutItem: [WS, VERSIONS, AUDIT],
    UpdateItem: [...RATE, `DENIED#ws_${ANY_ID}#*`],
    DeleteItem: [WS, VERSIONS],
    ConditionCheckItem: [WS],
    BatchWriteItem: [VERSIONS],
    Query: [WS, VERSIONS],
  };
  const digestKeyArn = { 'Fn::GetAtt': [idOf(stack, stack.auditDigests.signingKey), 'Arn'] };
  const own: Record<FunctionName, Statement[]> = {
    projects: [...table(api({ Query: [WS], GetItem: [WS], PutItem: [WS, AUDIT] })), lastUsed([TOKEN, WS]), macKey],
    environments: [
      ...table(api({ Query: [WS], GetItem: [WS], PutItem: [WS, AUDIT], ConditionCheckItem: [WS] })),
      lastUsed([TOKEN, WS]),
      macKey,
    ],
    secrets: [
      ...table(api(secretItems)),
      lastUsed([TOKEN, WS]),
      // The first load of an old environment marks it, and the first scoped search of one indexes its key items and
      // marks it; they may change nothing else of the workspace partition.
      updatesOnly([WS], ['searchIndexed', 'GSI4PK', 'GSI4SK']),
      index('GSI1', [`SECRETS#ws_${ANY_ID}`]),
      index('GSI4', [`ESEC#ws_${ANY_ID}#*`]),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], SECRET_VALUE_CONTEXT),
      macKey,
      sendRotation,
    ],
    // GET /api/v1/audit/public-key: the digest key's public key, and nothing else of that key.
    audit: [...table(api({ Query: [AUDIT] }, false)), lastUsed([TOKEN, WS]), macKey, allow(['kms:GetPublicKey'], digestKeyArn)],
    // Change requests: the request and each key's item read; open, reviews and close put the request with its entry;
    // a merge puts what a secret write puts; a proposed value's reveal counts on the reveal counters.
    'change-requests': [
      ...table(api({ GetItem: [WS], PutItem: [WS, VERSIONS, AUDIT], UpdateItem: RATE, DeleteItem: [WS] })),
      lastUsed([TOKEN, WS]),
      index('GSI1', [`CRS#ws_${ANY_ID}#*`]),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], PROPOSED_VALUE_CONTEXT),
      kms(['kms:GenerateDataKey'], SECRET_VALUE_CONTEXT),
      macKey,
    ],
    // Syncs: the sync and its environment read, the workspace's syncs listed; create, PATCH and delete write the sync
    // (and its written keys' item, its counter) with the audit entry; a GitHub token is sealed, never opened.
    syncs: [
      ...table(api({ GetItem: [WS], Query: [WS], PutItem: [WS, AUDIT], UpdateItem: [WS], DeleteItem: [WS] })),
      lastUsed([TOKEN]),
      kms(['kms:GenerateDataKey'], SYNC_TOKEN_CONTEXT),
      macKey,
      sendSync,
    ],
    // Audit streams: a stream read, the workspace's streams listed; create, PATCH and delete write the stream (and its
    // counter) with the audit entry; credentials are sealed, never opened; a create's recorded answer (an https
    // stream's signing secret) is sealed and opened.
    'audit-streams': [
      ...table(api({ GetItem: [WS], Query: [WS], PutItem: [WS, AUDIT], UpdateItem: [WS], DeleteItem: [WS] })),
      lastUsed([TOKEN]),
      // Sealed by a create or a PATCH, opened by a test's send.
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], AUDIT_STREAM_CREDENTIAL_CONTEXT),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], IDEMPOTENT_ANSWER_CONTEXT),
      macKey,
    ],
    // Recorded idempotent answers that carry the token are sealed and opened (issue 13). The one credential writer:
    // it updates token items in full (revoke), so it needs no lastUsedAt-only grant.
    'access-keys': [
      ...table(api({ GetItem: [WS], Query: [WS, LOGIN_TOKENS], PutItem: [WS, ACCESS_KEY_BY_ID, TOKEN, AUDIT], UpdateItem: [WS, TOKEN] })),
      // Creating a key with auth aws_sigv4 seals its secret access key; it never opens one.
      kms(['kms:GenerateDataKey'], AWS_KEY_CONTEXT),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], IDEMPOTENT_ANSWER_CONTEXT),
      macKey,
    ],
    webhooks: [
      ...table(
        api({
          BatchGetItem: [DELIVERIES],
          GetItem: [WS],
          Query: [WS, DELIVERIES],
          PutItem: [WS, AUDIT],
          UpdateItem: [WS, DELIVERIES],
          DeleteItem: [WS],
          BatchWriteItem: [DELIVERIES],
        }),
      ),
      lastUsed([TOKEN]),
      index('GSI1', [ENDPOINT_LOG]),
      index('GSI3', [ENDPOINT_LOG]),
      kms(['kms:GenerateDataKey'], SIGNING_SECRET_CONTEXT),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], IDEMPOTENT_ANSWER_CONTEXT),
      macKey,
    ],
    'webhook-deliveries': [
      ...table(
        api({
          BatchGetItem: [DELIVERIES],
          GetItem: [WS, DELIVERIES],
          Query: [DELIVERIES],
          PutItem: [AUDIT, DELIVERIES],
          UpdateItem: [DELIVERIES],
        }),
      ),
      lastUsed([TOKEN, WS]),
      index('GSI3', [ENDPOINT_LOG]),
      // A recovery counts the endpoint's failed deliveries.
      index('GSI4', [FAILED_LIST]),
      send,
      macKey,
    ],
    // The login authenticates nobody (no token, cursor or idempotency grants): the key's workspace by its id, the key,
    // its workspace and its two login counters read together, a refusal's counter, and the token issued with its
    // live-token entry, audit entry and the count of successful logins.
    auth: [
      ...table({
        GetItem: [ACCESS_KEY_BY_ID, MAC_KEY],
        BatchGetItem: [WS, RATE[1]!],
        ConditionCheckItem: [WS],
        UpdateItem: [RATE[1]!],
        PutItem: [TOKEN, LOGIN_TOKENS, AUDIT],
      }),
      macKey,
    ],
    // Serves a static document (issue 12): its logs, and the Denies every role carries.
    openapi: [],
    // The AWS API: what the REST secrets group does to secrets (reads, reveals counted and audited, writes, deletes,
    // restores; its VersionId and deleted-path items are in the same partitions), and opens the signing keys' secret
    // halves; no idempotency records. Session tokens of temporary credentials are checked with the MAC roots.
    aws: [
      ...table(merge({ BatchGetItem: [TOKEN, WS], GetItem: [TOKEN, MAC_KEY, CURSOR_KEY], PutItem: [CURSOR_KEY] }, secretItems)),
      updatesOnly([WS], ['searchIndexed', 'GSI4PK', 'GSI4SK', 'deletedSecretsIndexed']),
      // ListSecrets with IncludePlannedDeletion: deleted records of before their GSI1 keys get them, once per workspace.
      updatesOnly([VERSIONS], ['GSI1PK', 'GSI1SK']),
      index('GSI1', [`DELETED#ws_${ANY_ID}`, `SECRETS#ws_${ANY_ID}`]),
      index('GSI4', [`ESEC#ws_${ANY_ID}#*`]),
      lastUsed([TOKEN, WS]),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], SECRET_VALUE_CONTEXT),
      kms(['kms:Decrypt'], AWS_KEY_CONTEXT),
      macKey,
      sendRotation,
    ],
    'webhook-fanout': [
      // UpdateItem: a first attempt whose message could not be queued is handed to the sweeper. BatchGetItem: the
      // heads of a value change's dependents, and its project and environment (the reverse index of references).
      ...table({ Query: [WS], BatchGetItem: [WS], PutItem: [DELIVERIES], UpdateItem: [DELIVERIES] }),
      send,
      sendSync,
      sendStream,
      // The stream event source: read the stream, and put failed batches on the failure queue.
      allow(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], { 'Fn::GetAtt': [tableId, 'StreamArn'] }),
      allow(['dynamodb:ListStreams'], '*'),
      allow(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], {
        'Fn::GetAtt': [idOf(stack, stack.delivery.streamFailureQueue), 'Arn'],
      }),
    ],
    'delivery-worker': [
      // Query: a batch's endpoints of one workspace at once, and the statistics rollup's reads.
      ...table({
        GetItem: [WS, DELIVERIES],
        BatchGetItem: [DELIVERIES],
        Query: [WS, DELIVERIES],
        UpdateItem: [WS, DELIVERIES],
        PutItem: [AUDIT],
      }),
      index('GSI1', [ENDPOINT_LOG]),
      index('GSI3', [ENDPOINT_LOG]),
      // A recovery's steps page through the endpoint's failed deliveries.
      index('GSI4', [FAILED_LIST]),
      kms(['kms:Decrypt'], SIGNING_SECRET_CONTEXT),
      send,
      // The queue event source.
      allow(
        ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'],
        queueArn,
      ),
      allow(['scheduler:CreateSchedule'], schedules),
      passRole(stack.delivery.schedulerRole),
    ],
    'delivery-sweeper': [...table({ UpdateItem: [DELIVERIES] }), index('GSI2', ['DUE#0', 'DUE#1', 'DUE#2', 'DUE#3', 'RECOVERY']), send],
    // The purger: the deleted record and the secret's partition read, its versions batch-deleted, its list item (in
    // the workspace partition) and record deleted; the due purges on GSI2 `PURGE`. No key, no queue, no put.
    'secret-purger': [
      ...table({ GetItem: [WS, VERSIONS], Query: [VERSIONS], BatchWriteItem: [VERSIONS], DeleteItem: [WS, VERSIONS] }),
      index('GSI2', ['PURGE']),
    ],
    // The rotation runner: the rotation item (its lease) in the secret's partition, the head and the items a write
    // puts beside it, the version and its VersionId, the audit entries; no Query, batch, delete or index. Seals the new
    // value (and opens a redelivered step's to compare); consumes its queue and queues the next step. No
    // lambda:InvokeFunction by default: rotationFunctionArns is empty. Keeps the rotation schedules: makes, changes and
    // deletes `rotate-*` in the rotation group only, passing the rotation scheduler role to Scheduler alone.
    rotation: [
      ...table({ GetItem: [WS, VERSIONS], PutItem: [WS, VERSIONS, AUDIT], UpdateItem: [VERSIONS] }),
      kms(['kms:GenerateDataKey', 'kms:Decrypt'], SECRET_VALUE_CONTEXT),
      sendRotation,
      allow(
        ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'],
        rotationQueueArn,
      ),
      allow(['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'], schedulesIn('prod-rotations/rotate-*')),
      passRole(stack.rotation.schedulerRole),
    ],
    // The audit digester: the workspaces on GSI2 `WORKSPACES`, each audit partition queried (the last digest, the
    // entries) and its digest item put there (conditionally); the digest key's signature (ECDSA over a digest, nothing
    // else) and public key; objects of its bucket written and read. No delete, retention change or bypass in S3.
    'audit-digester': [
      ...table({ Query: [AUDIT], PutItem: [AUDIT] }),
      index('GSI2', ['WORKSPACES']),
      allow(['kms:Sign'], digestKeyArn, { StringEquals: { 'kms:SigningAlgorithm': 'ECDSA_SHA_256', 'kms:MessageType': 'DIGEST' } }),
      allow(['kms:GetPublicKey'], digestKeyArn),
      allow(['s3:GetObject', 's3:PutObject'], {
        'Fn::Join': ['', [{ 'Fn::GetAtt': [idOf(stack, stack.auditDigests.bucket), 'Arn'] }, '/*']],
      }),
    ],
    // The sync worker (shared/syncs/pipeline/): the sync read and its lease taken and given back (those attributes
    // alone); the environment's values loaded as the secrets service does (the environment and the cursor key read,
    // the path items queried), the page counted on the reveal counters and each reveal audited;
    // references resolved (heads by path, batch-read); a push ended in one transaction (the outcome with the lease,
    // the written keys' item put or deleted, the `sync.update` entry). Opens values and the sync's GitHub token,
    // seals nothing; consumes the sync queue and queues its retries on it. No sts, ssm or secretsmanager action
    // without syncRoleArns and syncOwnAccount (below).
    'sync-worker': [
      ...table({
        GetItem: [WS, CURSOR_KEY],
        Query: [WS],
        BatchGetItem: [WS],
        PutItem: [WS, AUDIT, CURSOR_KEY],
        DeleteItem: [WS],
        UpdateItem: RATE,
      }),
      updatesOnly([WS], ['leaseOwner', 'leaseUntil', 'status', 'lastSyncedAt', 'lastError', 'failingSince', 'pushedThrough']),
      kms(['kms:Decrypt'], SECRET_VALUE_CONTEXT),
      kms(['kms:Decrypt'], SYNC_TOKEN_CONTEXT),
      sendSync,
      allow(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'], {
        'Fn::GetAtt': [idOf(stack, stack.syncs.queue), 'Arn'],
      }),
    ],
    // The audit stream worker (shared/audit-streams/delivery/): the stream read and its delivery health written
    // (those attributes alone); a stream disabled with its system audit entry. Opens stream credentials, seals
    // nothing; consumes its queue and queues its retries on it.
    'audit-stream-worker': [
      ...table({ GetItem: [WS], PutItem: [AUDIT] }),
      updatesOnly([WS], ['lastDeliveredAt', 'failingSince', 'lastError', 'status', 'updatedAt', 'revision']),
      kms(['kms:Decrypt'], AUDIT_STREAM_CREDENTIAL_CONTEXT),
      sendStream,
      allow(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'], {
        'Fn::GetAtt': [idOf(stack, stack.auditStreams.queue), 'Arn'],
      }),
    ],
  };
  /** The audit writers, and the credential writers: everyone else is denied those puts outright. */
  const auditWriters: FunctionName[] = [
    'projects',
    'environments',
    'secrets',
    'access-keys',
    'webhooks',
    'webhook-deliveries',
    'auth',
    'aws',
    'change-requests',
    'syncs',
    'audit-streams',
    'delivery-worker',
    'rotation',
    // Each value a push reveals is audited, and a sync that fails or recovers gets its `sync.update` entry.
    'sync-worker',
    // Its digest items live in the audit partitions (conditional puts, never over an entry).
    'audit-digester',
    // A stream disabled after 3 days of failing gets its system `audit_stream.update` entry.
    'audit-stream-worker',
  ];
  const deny = (Sid: string, actions: string[], partition: string, more: Record<string, unknown> = {}): Statement => ({
    Sid,
    Effect: 'Deny',
    Action: actions.map((action) => `dynamodb:${action}`),
    Resource: tableArn,
    Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [partition] }, ...more },
  });
  // Every role: audit entries are never updated, deleted or batch-written (issue 11, now the secrets function too:
  // its bulk reveal puts its entries one by one, conditionally), and the MAC key is never written.
  const denies = (name: FunctionName): Statement[] => [
    deny('AuditEntriesAreImmutable', ['BatchWriteItem', 'DeleteItem', 'UpdateItem'], 'WS#*#AUDIT'),
    deny('MacKeyIsReadOnly', ['BatchWriteItem', 'DeleteItem', 'PutItem', 'UpdateItem'], MAC_KEY),
    ...(auditWriters.includes(name) ? [] : [deny('OnlyAuditWritersPutAuditEntries', ['PutItem'], 'WS#*#AUDIT')]),
    // Access keys create and change credential items; a login creates its token and changes none.
    ...(name === 'access-keys' || name === 'auth'
      ? []
      : [deny('OnlyTheCredentialWriterCreatesCredentials', ['BatchWriteItem', 'PutItem'], TOKEN)]),
    ...(name === 'access-keys'
      ? []
      : [
          deny('CredentialsChangeOnlyByLastUse', ['UpdateItem'], TOKEN, {
            'ForAnyValue:StringNotEquals': { 'dynamodb:Attributes': ['PK', 'SK', 'lastUsedAt'] },
          }),
        ]),
  ];
  return (name) => canonical([logs(name), ...denies(name), ...own[name]]);
}

describe('IAM: least privilege per function', () => {
  it.each(FUNCTION_NAMES)('grants %s exactly the actions its code uses, on its resources only', (name) => {
    // Assess
    expect(canonical(statementsOf(template, stack, functionsOf(stack)[name]))).toEqual(expectedFor(name));
  });

  it('gives each function its own role, with no managed policy and nothing attached besides its own policy', () => {
    const roleIds = Object.values(functionsOf(stack)).map((fn) => idOf(stack, fn.role));
    expect(new Set(roleIds).size).toBe(FUNCTION_NAMES.length);
    for (const role of Object.values(template.findResources('AWS::IAM::Role')) as Resource[]) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      expect(role.Properties.Policies).toBeUndefined();
    }
    const functions = template.findResources('AWS::Lambda::Function');
    for (const fn of Object.values(functionsOf(stack))) {
      expect(functions[idOf(stack, fn.function)]?.Properties.Role).toEqual({ 'Fn::GetAtt': [idOf(stack, fn.role), 'Arn'] });
    }
  });

  it('grants no Scan, no service-wide action, no index wildcard, and "*" only for dynamodb:ListStreams', () => {
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    );
    const actions = statements.flatMap((s) => [s.Action].flat());
    expect(actions.filter((action) => /Scan|:\*$|^\*$/.test(action))).toEqual([]);
    expect(JSON.stringify(statements)).not.toContain('/index/*');
    const onEverything = statements.filter((s) => [s.Resource].flat().includes('*'));
    expect(onEverything).toEqual([{ Effect: 'Allow', Action: 'dynamodb:ListStreams', Resource: '*' }]);
  });

  it('allows iam:PassRole for the two scheduler roles only, each to its one function, and only to EventBridge Scheduler', () => {
    const passRole = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
        .filter((s) => [s.Action].flat().some((action) => action.startsWith('iam:')))
        .map((statement) => ({ roles: policy.Properties.Roles, statement })),
    );
    const passing = (fn: { role: Parameters<typeof idOf>[1] }, schedulerRole: Parameters<typeof idOf>[1]) => ({
      roles: [{ Ref: idOf(stack, fn.role) }],
      statement: {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: { 'Fn::GetAtt': [idOf(stack, schedulerRole), 'Arn'] },
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
    });
    expect(passRole).toHaveLength(2);
    expect(passRole).toEqual(
      expect.arrayContaining([
        passing(stack.delivery.functions['delivery-worker'], stack.delivery.schedulerRole),
        passing(stack.rotation.runner, stack.rotation.schedulerRole),
      ]),
    );
  });
});

describe('IAM: what the sync worker may do outside the service', () => {
  const arnIn = (service: string, resource: string) => ({
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:${service}:*:`, { Ref: 'AWS::AccountId' }, `:${resource}`]],
  });

  it('may assume exactly the syncRoleArns patterns (${workspaceId} as *) and, with syncOwnAccount, write parameters and secrets of its account, never read one', () => {
    // Act
    const { stack: withSyncs, template: synced } = synth(outdir.dir, {
      syncRoleArns: ['arn:aws:iam::111122223333:role/sync-${workspaceId}', 'arn:aws:iam::444455556666:role/secrets-sync'],
      syncOwnAccount: true,
    });

    // Assess: beside what the worker always has (above), these alone
    const always = new Set(statementsOf(template, stack, stack.syncs.worker).map((s) => JSON.stringify(canonical([s]))));
    const extra = statementsOf(synced, withSyncs, withSyncs.syncs.worker).filter((s) => !always.has(JSON.stringify(canonical([s]))));
    expect(canonical(extra)).toEqual(
      canonical([
        {
          Effect: 'Allow',
          Action: ['sts:AssumeRole'],
          Resource: ['arn:aws:iam::111122223333:role/sync-*', 'arn:aws:iam::444455556666:role/secrets-sync'],
        },
        { Effect: 'Allow', Action: ['ssm:DeleteParameter', 'ssm:PutParameter'], Resource: arnIn('ssm', 'parameter/*') },
        {
          Effect: 'Allow',
          // No GetSecretValue: on secret:* it would read every secret of the account.
          Action: [
            'secretsmanager:CreateSecret',
            'secretsmanager:DeleteSecret',
            'secretsmanager:PutSecretValue',
            'secretsmanager:RestoreSecret',
          ],
          Resource: arnIn('secretsmanager', 'secret:*'),
        },
        {
          Effect: 'Allow',
          Action: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
          Resource: arnIn('kms', 'key/*'),
          Condition: { StringLike: { 'kms:ViaService': ['ssm.*.amazonaws.com', 'secretsmanager.*.amazonaws.com'] } },
        },
      ]),
    );
  });

  it('refuses a syncRoleArns pattern that names no IAM role, or * alone', () => {
    for (const pattern of ['*', 'arn:aws:iam::111122223333:user/sync', 'arn:aws:s3:::bucket', '${workspaceId}']) {
      expect(() => synth(outdir.dir, { syncRoleArns: [pattern] }), pattern).toThrow(/syncRoleArns: .* is not an IAM role ARN pattern/);
    }
  });
});

describe('IAM: the role EventBridge Scheduler assumes', () => {
  it('is assumed only by scheduler.amazonaws.com for schedules of this account and schedule group', () => {
    const role = template.findResources('AWS::IAM::Role')[idOf(stack, stack.delivery.schedulerRole)] as Resource;
    const groupId = idOf(stack, stack.delivery.scheduleGroup);
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': { 'Fn::GetAtt': [groupId, 'Arn'] } },
        },
      },
    ]);
  });

  it('may only send messages to the delivery queue', () => {
    const roleId = idOf(stack, stack.delivery.schedulerRole);
    const policies = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`),
    );
    expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [idOf(stack, stack.delivery.queue), 'Arn'] } },
    ]);
  });
});
