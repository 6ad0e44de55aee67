import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { makeSqsClient } from '../../shared/platform/clients/sqs.ts';
import { checksumHolds, hashToken, issuedTokenShape } from '../../shared/access/index.ts';
import { makeDocumentClient } from '../../shared/platform/clients/dynamodb.ts';
import { systemClock } from '../../shared/platform/clock.ts';
import { LOCAL_MASTER_KEY_FILE, loadOrCreateMasterKey, makeLocalKeyring } from '../../shared/platform/crypto/local-keyring.ts';
import { ensureOperatorMacs, type ServiceMacs } from '../../shared/platform/crypto/mac-key.ts';
import { makeMacKeyStore } from '../../shared/platform/store/mac-key-store.ts';
import { API_FUNCTION, handlerEntry, PIPELINE_FUNCTIONS, type PipelineFunction } from '../../shared/platform/functions.ts';
import { ROUTE_GROUPS, type RouteGroup } from '../../shared/platform/routes.ts';
import { makeWorkspaceAdminService } from '../../shared/workspaces/workspace-wiring.ts';
import { makeWorkspaceStore, type WorkspaceStore } from '../../shared/workspaces/index.ts';
import { ENTITY } from '../../shared/platform/store/keys.ts';
import { freePort, startDynamoDbLocal } from './dynamodb.ts';
import { startHttpFront, type FrontRoute, type LambdaHandler } from './http-front.ts';
import { buildConsole } from '../console-build.ts';
import { ensureTable } from './table.ts';
import { migrateDeliveryLog } from '../migrate-delivery-log.ts';
import { startLocalScheduler } from './local-scheduler.ts';
import { writeJsonAtomic } from './json-file.ts';
import { startSchedulerApi } from './scheduler-api.ts';
import { startLocalSqs } from './sqs.ts';
import { startSqsPoller } from './sqs-poller.ts';
import { ensureRotationQueue, startRotationRunner } from './rotation.ts';
import { ensureWorkerQueues, startQueueWorker } from './queue-workers.ts';
import { startRecurringScheduler } from './recurring-scheduler.ts';
import { runEvery, startScheduledFunctions } from './scheduled-functions.ts';
import { FUNCTIONS_FILE, makeLocalFunctionInvoker } from './local-functions.ts';
import { startStreamPoller } from './stream-poller.ts';
import { localOperator } from '../operator.ts';
import { startLocalSts } from './sts.ts';
import { writeLocalEnv } from './local-credentials.ts';

export const PROJECT_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const LOCAL_TABLE = 'secrets-local';

export interface LocalStackOptions {
  /** Where data, keys and stack.json live. */
  localDir: string;
  /** HTTP port of the API (0 = any free port). */
  port: number;
  /** DynamoDB Local's port (default: any free port). */
  dynamoPort?: number;
  /** Keep the table on disk under localDir (default) or in memory (tests). */
  persist?: boolean;
}

/** What `LOCAL_DIR/stack.json` holds; the admin CLI and tests read it too. */
export interface StackInfo {
  baseUrl: string;
  workspaceId: string;
  apiKey: string;
  dynamodbEndpoint: string;
  tableName: string;
  sqsEndpoint: string;
  queueUrl: string;
  queueArn: string;
  schedulerEndpoint: string;
  /** The STS stand-in (bin/local/sts.ts): where a workload's signed GetCallerIdentity goes. */
  awsStsEndpoint: string;
  /** The server id a signed login must carry (`x-service-server-id`): the host and port of `baseUrl`. */
  iamServerId: string;
}

const { 'webhook-fanout': FANOUT, 'delivery-worker': WORKER, 'delivery-sweeper': SWEEPER } = PIPELINE_FUNCTIONS;

export interface LocalStack extends StackInfo {
  stop(): Promise<void>;
}

/**
 * The whole service on this machine: DynamoDB Local with streams, the table from the CDK's own definition, the
 * real route-group handlers behind a local API Gateway, and a bootstrap workspace that survives restarts.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const localDir = resolve(options.localDir);
  mkdirSync(localDir, { recursive: true });
  const dynamo = await startDynamoDbLocal({
    port: options.dynamoPort ?? (await freePort()),
    dataDir: options.persist === false ? null : join(localDir, 'dynamodb'),
  });
  const stops: (() => Promise<void>)[] = [() => dynamo.stop()];
  // Producers stop first, then consumers, then the stores (see bin/local/sqs-poller.ts on fauxqs long polls).
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    const admin = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const added = await ensureTable(admin, LOCAL_TABLE);
    const doc = makeDocumentClient({ endpoint: dynamo.endpoint });
    // A local table from before the delivery log index: its deliveries move into it, as an operator does on AWS.
    if (added.includes('GSI3')) await migrateDeliveryLog(doc, LOCAL_TABLE);
    admin.destroy();
    // The local keyring stands in for KMS: its AES-256 master key is made under localDir on first start.
    const keyFile = join(localDir, LOCAL_MASTER_KEY_FILE);
    await loadOrCreateMasterKey(keyFile);
    const delivery = await startDeliveryInfrastructure(localDir, options.persist !== false, stops);
    const rotationQueue = delivery.rotation;
    Object.assign(process.env, {
      TABLE_NAME: LOCAL_TABLE,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      LOCAL_KEYRING_FILE: keyFile,
      AWS_REGION: process.env.AWS_REGION ?? 'local',
      // The AWS Secrets Manager API answers as us-east-1 with account 000000000000 (decisions.md), whatever the
      // local clients' own region is.
      AWS_API_REGION: 'us-east-1',
      DELIVERY_QUEUE_URL: delivery.queueUrl,
      DELIVERY_QUEUE_ARN: delivery.queueArn,
      ROTATION_QUEUE_URL: rotationQueue.queueUrl,
      ROTATION_QUEUE_ARN: rotationQueue.queueArn,
      ...Object.fromEntries(delivery.workers.map(({ worker, queue }) => [worker.urlVariable, queue.queueUrl])),
      LOCAL_ROTATION_FUNCTIONS_FILE: join(localDir, FUNCTIONS_FILE),
      ROTATION_SCHEDULE_GROUP: 'rotations',
      ROTATION_SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/local-rotation-scheduler',
      SQS_ENDPOINT: delivery.sqsEndpoint,
      SCHEDULER_ENDPOINT: delivery.schedulerEndpoint,
      SCHEDULER_GROUP: 'local',
      SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/local-scheduler',
    });
    const store = makeWorkspaceStore({ doc, tableName: LOCAL_TABLE });
    // The service MAC key, made on first start as an operator makes it with the admin CLI on AWS.
    const macs = await ensureOperatorMacs(makeMacKeyStore({ doc, tableName: LOCAL_TABLE }), makeLocalKeyring({ keyFile }));
    const bootstrap = await ensureBootstrapWorkspace(store, localDir, macs);
    // The STS stand-in answers for the identities `npm run admin -- iam-identity create` keeps under localDir.
    const sts = await startLocalSts(localDir);
    stops.push(() => new Promise<void>((resolve) => sts.server.close(() => resolve())));
    // The login function replays IAM logins to the stand-in and requires the front's host and port as the server id
    // (unless the environment names others): set before the handlers load, which read their settings once.
    // The web console, built into localDir and served by the front under /console/ (CONSOLE_CLIENT_ID turns on the
    // sign-in with the identity provider of JWT_ISSUER, as the stack's `consoleClientId` does; CONSOLE_RESOURCE is the
    // resource indicator it asks for, when the provider needs one to issue the API's JWT access tokens).
    const consoleBuild = await buildConsole(join(localDir, 'console'));
    const front = await startHttpFront({
      port: options.port,
      console: {
        dir: consoleBuild.outdir,
        config: {
          apiUrl: '',
          ...(process.env.JWT_ISSUER && process.env.CONSOLE_CLIENT_ID
            ? { issuer: process.env.JWT_ISSUER, clientId: process.env.CONSOLE_CLIENT_ID }
            : {}),
          ...(process.env.CONSOLE_RESOURCE ? { resource: process.env.CONSOLE_RESOURCE } : {}),
          roleClaim: process.env.JWT_ROLE_CLAIM || 'roles',
          defaultRole: process.env.JWT_DEFAULT_ROLE || 'viewer',
        },
      },
      routes: async (url) => {
        process.env.AWS_STS_ENDPOINT ??= sts.endpoint;
        process.env.IAM_SERVER_ID ??= new URL(url).host;
        return loadRoutes();
      },
      timeoutMs: API_FUNCTION.timeoutSeconds * 1000,
    });
    stops.push(() => front.close());
    await startPipeline(
      { localDir, dynamoEndpoint: dynamo.endpoint, sqs: delivery.sqsClient, queueUrl: delivery.queueUrl, queueArn: delivery.queueArn },
      stops,
    );
    const invoker = makeLocalFunctionInvoker({ localDir, baseUrl: front.url });
    await startRotationRunner({ sqs: delivery.sqsClient, ...rotationQueue, projectRoot: PROJECT_ROOT, invoker }, stops);
    await startScheduledFunctions(PROJECT_ROOT, localDir, stops);
    for (const made of delivery.workers) await startQueueWorker({ sqs: delivery.sqsClient, ...made, projectRoot: PROJECT_ROOT }, stops);
    const { sqsClient: _client, rotation: _rotation, workers: _workers, ...deliveryInfo } = delivery;
    const info: StackInfo = {
      baseUrl: front.url,
      ...bootstrap,
      dynamodbEndpoint: dynamo.endpoint,
      tableName: LOCAL_TABLE,
      ...deliveryInfo,
      awsStsEndpoint: process.env.AWS_STS_ENDPOINT!,
      iamServerId: process.env.IAM_SERVER_ID!,
    };
    // A shell's credentials (the AWS key pair made through the API, now that it answers), before stack.json tells
    // whoever waits for it that the stack is up.
    await writeLocalEnv(localDir, { baseUrl: front.url, apiKey: bootstrap.apiKey, region: 'us-east-1' }, store);
    // Atomic, so whoever waits for the file never reads half of it.
    await writeJsonAtomic(join(localDir, 'stack.json'), info);
    return { ...info, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The webhook delivery queue (fauxqs, with its dead-letter queue), the rotation, sync and audit stream queues, and EventBridge
 * Scheduler's stand-in: the local scheduler, persisted under localDir, behind a local CreateSchedule API.
 */
async function startDeliveryInfrastructure(localDir: string, persist: boolean, stops: (() => Promise<void>)[]) {
  const sqs = await startLocalSqs({ dataDir: persist ? join(localDir, 'sqs') : null });
  stops.push(() => sqs.stop());
  const sqsClient = makeSqsClient({ endpoint: sqs.endpoint });
  const scheduler = await startLocalScheduler({ file: join(localDir, 'schedules.json'), sqs: sqsClient, queueUrl: sqs.queueUrl });
  stops.push(() => scheduler.stop());
  // The rotation queue and its recurring schedules (bin/local/rotation.ts, recurring-scheduler.ts).
  const rotation = await ensureRotationQueue(sqsClient);
  const workers = await ensureWorkerQueues(sqsClient);
  const recurring = await startRecurringScheduler({ file: join(localDir, 'rotation-schedules.json'), sqs: sqsClient });
  stops.push(() => recurring.stop());
  const api = await startSchedulerApi({ scheduler, queueArn: sqs.queueArn, recurring: { scheduler: recurring, ...rotation } });
  stops.push(() => api.close());
  const { queueUrl, queueArn } = sqs;
  return { sqsClient, sqsEndpoint: sqs.endpoint, queueUrl, queueArn, schedulerEndpoint: api.endpoint, rotation, workers };
}

/**
 * The delivery pipeline with Lambda's event-source semantics: the table stream feeds the fan-out, the queue feeds
 * the worker, and the sweeper runs every 5 minutes (and once at start, for anything a restart left behind), as the
 * secret purger does (startSecretPurger).
 */
async function startPipeline(
  input: { localDir: string; dynamoEndpoint: string; sqs: SQSClient; queueUrl: string; queueArn: string },
  stops: (() => Promise<void>)[],
) {
  const handlers = await loadPipelineHandlers();
  const workers = startSqsPoller({
    sqs: input.sqs,
    queueUrl: input.queueUrl,
    queueArn: input.queueArn,
    handler: handlers['delivery-worker'] as never,
    batchSize: WORKER.batchSize,
    concurrency: WORKER.maxConcurrency,
    timeoutMs: WORKER.timeoutSeconds * 1000,
    functionName: 'delivery-worker',
  });
  stops.push(() => workers.stop());
  const stream = await startStreamPoller({
    endpoint: input.dynamoEndpoint,
    tableName: LOCAL_TABLE,
    handler: handlers['webhook-fanout'] as never,
    checkpointFile: join(input.localDir, 'stream-checkpoints.json'),
    batchSize: FANOUT.batchSize,
    maxRetries: FANOUT.retryAttempts,
    timeoutMs: FANOUT.timeoutSeconds * 1000,
    functionName: 'webhook-fanout',
    // The deployed event source mapping's filters (lib/webhook-delivery.ts): new audit entries, for the events, and
    // a changed or removed audit entry, for the tamper alarm.
    filter: (record) =>
      (record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === ENTITY.audit) ||
      ((record.eventName === 'MODIFY' || record.eventName === 'REMOVE') && record.dynamodb?.OldImage?.type?.S === ENTITY.audit),
  });
  stops.push(() => stream.stop());
  runEvery(handlers['delivery-sweeper'] as () => Promise<unknown>, SWEEPER.intervalMinutes, stops);
}

type PipelineHandler = (event: never, context: never) => Promise<unknown>;

/** Imports each pipeline function's real handler module, from its entry in shared/platform/functions.ts. */
async function loadPipelineHandlers(): Promise<Record<PipelineFunction, PipelineHandler>> {
  const entries = await Promise.all(
    Object.entries(PIPELINE_FUNCTIONS).map(async ([name, { entry }]) => {
      const module = (await import(pathToFileURL(join(PROJECT_ROOT, entry)).href)) as { handler: PipelineHandler };
      return [name, module.handler] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<PipelineFunction, PipelineHandler>;
}

/** Imports each route group's real handler module, as Lambda would, once the environment is set. */
async function loadRoutes(): Promise<FrontRoute[]> {
  const routes: FrontRoute[] = [];
  for (const group of Object.keys(ROUTE_GROUPS) as RouteGroup[]) {
    const module = (await import(pathToFileURL(join(PROJECT_ROOT, handlerEntry(group))).href)) as { handler: LambdaHandler };
    for (const routeKey of ROUTE_GROUPS[group]) routes.push({ routeKey, functionName: group, handler: module.handler });
  }
  return routes;
}

/**
 * The allowlisted workspace and API key of this local stack: made on first start and kept in
 * `LOCAL_DIR/bootstrap.json` (mode 600, local use only), so a restart prints the same key.
 */
export async function ensureBootstrapWorkspace(
  store: WorkspaceStore,
  localDir: string,
  macs: ServiceMacs,
): Promise<{ workspaceId: string; apiKey: string }> {
  const file = join(localDir, 'bootstrap.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { workspaceId: string; apiKey: string };
    const shape = issuedTokenShape(saved.apiKey);
    // A key of an older form (before keyed checksums) no longer authenticates: a new one is issued below.
    const current = shape !== undefined && checksumHolds(macs, shape);
    const token = current ? await store.getToken(hashToken(saved.apiKey)) : undefined;
    if (token && !token.revokedAt && token.workspaceId === saved.workspaceId) return saved;
  }
  const admin = makeWorkspaceAdminService({ store, clock: systemClock, operator: localOperator(), macs: async () => macs });
  const created = await admin.createWorkspace({ name: 'Local workspace', allowlisted: true });
  const saved = { workspaceId: created.workspaceId, apiKey: created.apiKey };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return saved;
}
