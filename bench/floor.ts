import type { FUNCTION_ENTRIES } from '../shared/platform/functions.ts';

/**
 * The SDK floor of each Lambda: a handler that creates the same AWS clients the function creates and can make the
 * same kinds of calls, with nothing else (no zod, no middy, no logger, no store). Bundled the way the stack bundles
 * (bench/bundles.ts), it is the least a function that makes those calls can weigh and take to import, so a function's
 * bytes and import time are reported as ratios to its own floor.
 */

type FunctionName = keyof typeof FUNCTION_ENTRIES;

/** The AWS calls a floor can make, by client: each is one SDK command the floor bundles. */
export interface FloorCalls {
  /** Through the document client (`@aws-sdk/lib-dynamodb`, over `DynamoDBClient`). */
  readonly dynamodb?: readonly DocumentCall[];
  readonly kms?: readonly ('Decrypt' | 'GenerateDataKey' | 'GetPublicKey' | 'Sign')[];
  /** The audit digests' bucket (decisions.md v1.4): each object written once, read back to compare. */
  readonly s3?: readonly ('PutObject' | 'GetObject')[];
  readonly sqs?: readonly ('SendMessage' | 'SendMessageBatch')[];
  readonly scheduler?: readonly ('CreateSchedule' | 'DeleteSchedule' | 'UpdateSchedule')[];
  /** Customers' rotation functions, invoked by the rotation runner. */
  readonly lambda?: readonly 'Invoke'[];
  /** Syncs' destinations (decisions.md v1.4): Parameter Store, Secrets Manager, and STS for their roles. */
  readonly ssm?: readonly string[];
  readonly secretsManager?: readonly string[];
  readonly sts?: readonly string[];
}

type DocumentCall = 'BatchGetItem' | 'BatchWriteItem' | 'GetItem' | 'PutItem' | 'Query' | 'TransactWriteItems' | 'UpdateItem';

const API_READS_WRITES = ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems', 'UpdateItem'] as const;
/**
 * Every API function unseals the service MAC keys (KMS Decrypt, on its first issued token: shared/access/api-runtime.ts)
 * through the key provider, whose module also makes data keys (GenerateDataKey): both commands are in every API
 * bundle, in a chunk loaded on first use.
 */
const DATA_KEYS = ['Decrypt', 'GenerateDataKey'] as const;
/** Deliveries are queued one at a time (retries, re-queues) or ten at a time (the fan-out's batches). */
const QUEUE_SENDS = ['SendMessage', 'SendMessageBatch'] as const;
/**
 * A secret's recurring rotation schedule (shared/rotation/eventbridge/eventbridge-rotation-schedules.ts), updated or created when
 * rotation is configured, deleted when it is turned off: in every function that builds the secrets service, in a chunk
 * loaded on the first configuration.
 */
const ROTATION_SCHEDULES = ['CreateSchedule', 'DeleteSchedule', 'UpdateSchedule'] as const;

/**
 * The kinds of AWS calls each function's bundle carries (one SDK command each). Update this table when a function
 * starts or stops using a command: test/infra/bundles.test.ts compares it with the commands each bundle holds. Each
 * pipeline stage builds only its own store methods (shared/webhooks/deliveries/delivery-pipeline-store.ts,
 * endpoint-pipeline-store.ts, and the worker's in delivery-store.ts), so each has its own list: the fan-out lists
 * endpoints and puts deliveries; the worker reads a delivery's endpoint, claims and records attempts and fails an
 * endpoint's queued deliveries (BatchGetItem of their status); the sweeper re-queues due deliveries and restarts
 * recoveries.
 */
export const FLOOR_CALLS: Readonly<Record<FunctionName, FloorCalls>> = {
  projects: { dynamodb: API_READS_WRITES, kms: DATA_KEYS },
  environments: { dynamodb: API_READS_WRITES, kms: DATA_KEYS },
  // Starting a rotation queues its first step (SendMessage, loaded on the first start).
  secrets: { dynamodb: [...API_READS_WRITES, 'BatchWriteItem'], kms: DATA_KEYS, sqs: ['SendMessage'] },
  // The audit log, and the digests' public key (GetPublicKey, loaded with the first request for it; Sign comes with the
  // signer's module, which the digester shares).
  audit: { dynamodb: API_READS_WRITES, kms: [...DATA_KEYS, 'GetPublicKey', 'Sign'] },
  // Change requests: the API's reads and writes (a merge is one transaction), and a reveal's counter (UpdateItem).
  'change-requests': { dynamodb: API_READS_WRITES, kms: DATA_KEYS },
  // Syncs: the API's reads and writes (create, PATCH and delete are transactions), a GitHub token's seal, and a full
  // sync queued (SendMessage, loaded on the first create, run or resume).
  syncs: { dynamodb: API_READS_WRITES, kms: DATA_KEYS, sqs: ['SendMessage'] },
  // Audit streams: the API's reads and writes (create, PATCH and delete are transactions) and a credential's seal.
  'audit-streams': { dynamodb: API_READS_WRITES, kms: DATA_KEYS },
  'access-keys': { dynamodb: API_READS_WRITES, kms: DATA_KEYS },
  webhooks: { dynamodb: [...API_READS_WRITES, 'BatchWriteItem'], kms: DATA_KEYS },
  'webhook-deliveries': { dynamodb: [...API_READS_WRITES, 'BatchWriteItem'], kms: DATA_KEYS, sqs: QUEUE_SENDS },
  // A login reads the key with its counters (GetItem, BatchGetItem), issues the token (a transaction) or counts a
  // refusal (UpdateItem) and audits it (PutItem); Query comes with the login store, whose revoke path lists live tokens.
  auth: { dynamodb: API_READS_WRITES, kms: DATA_KEYS },
  // The API description makes no AWS call: its floor is an empty handler.
  openapi: {},
  // The AWS API: the secrets store's calls (a reveal, a write, a delete's batches) and the signing key's lookup.
  aws: { dynamodb: [...API_READS_WRITES, 'BatchWriteItem'], kms: DATA_KEYS, sqs: ['SendMessage'] },
  'webhook-fanout': { dynamodb: ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], sqs: QUEUE_SENDS },
  'delivery-worker': {
    dynamodb: ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems', 'UpdateItem'],
    kms: DATA_KEYS,
    sqs: QUEUE_SENDS,
    scheduler: ['CreateSchedule'],
  },
  // GetItem and PutItem: the cursor-signing key's loader every runtime() builds with its pager.
  'delivery-sweeper': { dynamodb: ['GetItem', 'PutItem', 'Query', 'UpdateItem'], sqs: QUEUE_SENDS },
  // The purger: reads a deleted record, lists its partition, deletes versions in batches, then list item and record
  // in one transaction (shared/secrets/purge-store.ts); PutItem: the cursor-signing key's loader, as above.
  'secret-purger': { dynamodb: ['BatchWriteItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems'] },
  // The rotation runner: the secrets store it builds with the secrets service (the whole store, so every call of it),
  // the rotation schedules it keeps (made, changed and deleted to match each rotation item), the cipher (a chunk loaded on the first value), the next step queued (a
  // chunk loaded on the first), and the customer's rotation function invoked.
  rotation: {
    dynamodb: [...API_READS_WRITES, 'BatchWriteItem'],
    kms: DATA_KEYS,
    sqs: ['SendMessage'],
    scheduler: ROTATION_SCHEDULES,
    lambda: ['Invoke'],
  },
  // Reveals as the secrets service does, pushes through the destinations (each client loaded with its first sync).
  // BatchWriteItem: the whole secrets store it builds with the secrets service carries it (as the rotation runner's
  // does), though the worker never sends one (its role has no BatchWriteItem).
  'sync-worker': {
    dynamodb: [...API_READS_WRITES, 'BatchWriteItem'],
    kms: DATA_KEYS,
    sqs: ['SendMessage'],
    ssm: ['PutParameter', 'DeleteParameter'],
    secretsManager: ['CreateSecret', 'PutSecretValue', 'GetSecretValue', 'DeleteSecret', 'RestoreSecret'],
    sts: ['AssumeRole'],
  },
  // The audit digester (shared/audit-digests/): the workspaces on GSI2 and each one's digests and entries (Query),
  // the digest item's conditional put; the digest signed with the KMS key (and its public key read), each object
  // written once to the bucket and read back when one was there. GetItem: the cursor-signing key's loader every
  // runtime() builds with its pager, never called here (the digester hands out no cursor; its role has no GetItem).
  'audit-digester': { dynamodb: ['GetItem', 'PutItem', 'Query'], kms: ['Sign', 'GetPublicKey'], s3: ['PutObject', 'GetObject'] },
  // The audit stream worker (shared/audit-streams/delivery/): the stream read (GetItem), its health written (UpdateItem,
  // a disabling with its audit entry in one transaction), its credentials opened (the cipher's key provider carries
  // GenerateDataKey too), failed batches queued again (SendMessageBatch). PutItem: the cursor-signing key's loader
  // every runtime() builds with its pager, never called here.
  'audit-stream-worker': {
    dynamodb: ['GetItem', 'PutItem', 'TransactWriteItems', 'UpdateItem'],
    kms: DATA_KEYS,
    sqs: ['SendMessageBatch'],
  },
};

/** lib-dynamodb's command class for each document-client call. */
const DOCUMENT_COMMANDS: Record<DocumentCall, string> = {
  BatchGetItem: 'BatchGetCommand',
  BatchWriteItem: 'BatchWriteCommand',
  GetItem: 'GetCommand',
  PutItem: 'PutCommand',
  Query: 'QueryCommand',
  TransactWriteItems: 'TransactWriteCommand',
  UpdateItem: 'UpdateCommand',
};

/** The clients a floor can create, by the variable its handler sends through. */
export type FloorClient = 'dynamodb' | 'kms' | 'sqs' | 'scheduler' | 'lambda' | 'ssm' | 'secretsManager' | 'sts' | 's3';

/** Per client: its package, how the floor creates it (as shared/platform/clients/*.ts do, options included) and its commands. */
function clientsOf(calls: FloorCalls) {
  return [
    {
      module: '@aws-sdk/lib-dynamodb',
      imports: ["import { DynamoDBClient } from '@aws-sdk/client-dynamodb';"],
      setup:
        'const dynamodb = DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 3 }), { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });',
      client: 'dynamodb' as const,
      extraImports: ['DynamoDBDocumentClient'],
      commands: (calls.dynamodb ?? []).map((call) => DOCUMENT_COMMANDS[call]),
    },
    {
      module: '@aws-sdk/client-kms',
      imports: [],
      setup:
        'const kms = new KMSClient({ maxAttempts: 3, requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true } });',
      client: 'kms' as const,
      extraImports: ['KMSClient'],
      commands: (calls.kms ?? []).map((call) => `${call}Command`),
    },
    {
      module: '@aws-sdk/client-sqs',
      imports: [],
      setup: 'const sqs = new SQSClient({ maxAttempts: 3 });',
      client: 'sqs' as const,
      extraImports: ['SQSClient'],
      commands: (calls.sqs ?? []).map((call) => `${call}Command`),
    },
    {
      module: '@aws-sdk/client-scheduler',
      imports: [],
      setup: 'const scheduler = new SchedulerClient({ maxAttempts: 3 });',
      client: 'scheduler' as const,
      extraImports: ['SchedulerClient'],
      commands: (calls.scheduler ?? []).map((call) => `${call}Command`),
    },
    {
      module: '@aws-sdk/client-lambda',
      imports: [],
      setup: 'const lambda = new LambdaClient({ maxAttempts: 3, requestHandler: { connectionTimeout: 3_000 } });',
      client: 'lambda' as const,
      extraImports: ['LambdaClient'],
      commands: (calls.lambda ?? []).map((call) => `${call}Command`),
    },
    {
      module: '@aws-sdk/client-ssm',
      imports: [],
      setup: 'const ssm = new SSMClient({});',
      client: 'ssm' as const,
      extraImports: ['SSMClient'],
      commands: (calls.ssm ?? []).map((call) => `${call}Command`),
    },
    {
      module: '@aws-sdk/client-secrets-manager',
      imports: [],
      setup: 'const secretsManager = new SecretsManagerClient({});',
      client: 'secretsManager' as const,
      extraImports: ['SecretsManagerClient'],
      commands: (calls.secretsManager ?? []).map((call) => `${call}Command`),
    },
    {
      module: '@aws-sdk/client-sts',
      imports: [],
      setup: 'const sts = new STSClient({});',
      client: 'sts' as const,
      extraImports: ['STSClient'],
      commands: (calls.sts ?? []).map((call) => `${call}Command`),
    },
    {
      module: '@aws-sdk/client-s3',
      imports: [],
      setup: 'const s3 = new S3Client({ maxAttempts: 3 });',
      client: 's3' as const,
      extraImports: ['S3Client'],
      commands: (calls.s3 ?? []).map((call) => `${call}Command`),
    },
  ].filter((client) => client.commands.length > 0);
}

/**
 * The TypeScript source of a function's floor handler: module-scope clients, and a handler that sends the command
 * the event names (`{ call, input }`), so every command is reachable and none is tree-shaken away. `declaration`
 * names the handler (bench/mandated.ts wraps it, unexported, in middy); `made` gives the expression of a client that
 * the surrounding source already creates (bench/mandated.ts's pipeline floor sends through the runtime's client).
 */
export function floorSource(
  name: FunctionName,
  declaration = 'export const handler',
  made: Partial<Record<FloorClient, string>> = {},
): string {
  const clients = clientsOf(FLOOR_CALLS[name]);
  if (clients.length === 0) return `${declaration} = async () => ({});\n`;
  const lines = ['// Generated by bench/floor.ts: the SDK floor of one function.'];
  for (const client of clients)
    lines.push(...client.imports, `import { ${[...client.extraImports, ...client.commands].join(', ')} } from '${client.module}';`);
  for (const client of clients)
    lines.push(made[client.client] === undefined ? client.setup : `const ${client.client} = ${made[client.client]};`);
  lines.push('', `${declaration} = async (event: { call: string; input: any }) => {`, '  switch (event.call) {');
  for (const client of clients) {
    for (const command of client.commands)
      lines.push(`    case '${client.client}:${command}': return ${client.client}.send(new ${command}(event.input));`);
  }
  lines.push("    default: throw new Error('unknown call');", '  }', '};', '');
  return lines.join('\n');
}

/**
 * The SDK commands a bundle holds, from esbuild's metafile inputs (`<package>/dist-es/commands/<Name>Command.js`
 * with output bytes), as `<package>:<Name>Command`. The same list for a function and its floor means the floor
 * table is up to date.
 */
export function bundledCommands(inputs: Record<string, { bytesInOutput: number }>): string[] {
  return Object.entries(inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .flatMap(([path]) => {
      const match = /node_modules\/(@aws-sdk\/[^/]+)\/dist-es\/commands\/(\w+Command)\.js$/.exec(path);
      return match ? [`${match[1]}:${match[2]}`] : [];
    })
    .sort();
}
