import { ROUTE_GROUPS, type RouteGroup } from './routes.ts';

/**
 * Every Lambda function of the service and its settings, in one CDK-free list: the CDK stack (lib/), the local
 * stack (bin/local/), the bench and the tests all read it, so the local pipeline runs with the deployed settings.
 */

/** Settings of an API route group's function: API Gateway waits at most this long. */
export const API_FUNCTION = { timeoutSeconds: 10, memoryMb: 512 } as const;

/** The webhook pipeline's functions, their entries and settings. */
export const PIPELINE_FUNCTIONS = {
  /** Reads the table's stream: audit entries become deliveries. */
  'webhook-fanout': {
    entry: 'functions/webhook-fanout/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 512,
    batchSize: 100,
    retryAttempts: 5,
    /** Half the stream's 24-hour retention, so an operator still has 12 hours to replay a record. */
    maxRecordAgeHours: 12,
  },
  /** Consumes the delivery queue: one attempt per message. */
  'delivery-worker': {
    entry: 'functions/delivery-worker/handler.ts',
    /** One attempt sends with a 10 s overall timeout, several in parallel per batch; 30 s leaves room for DynamoDB and KMS. */
    timeoutSeconds: 30,
    memoryMb: 512,
    batchSize: 10,
    /** Worker instances at most: bounds the parallel HTTPS calls and the table writes the pipeline can make. */
    maxConcurrency: 10,
  },
  /** Re-queues deliveries whose message got lost, and restarts recoveries that stopped moving. */
  'delivery-sweeper': {
    entry: 'functions/delivery-sweeper/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    intervalMinutes: 5,
  },
} as const;

export type PipelineFunction = keyof typeof PIPELINE_FUNCTIONS;

/**
 * The secret purger (decisions.md, "Recoverable deletes"): purges deleted secrets whose recovery window has ended, and
 * purges a crash interrupted (shared/secrets/purge-service.ts). Run on a schedule, as the sweeper is, so a purge due is
 * done within minutes; a run that fails is not retried, since the next one comes soon and does the same.
 */
export const SECRET_PURGER_FUNCTION = {
  entry: 'functions/secret-purger/handler.ts',
  timeoutSeconds: 60,
  memoryMb: 256,
  intervalMinutes: 5,
} as const;

/**
 * The audit digester (decisions.md v1.4, "Audit streams and tamper evidence"): every workspace's signed, chained digest
 * of each period due, run hourly 20 minutes after the hour (a third of a period after its end). Five minutes: a run
 * walks every workspace and makes any digest still missing for an earlier hour too; a failed run is not retried by
 * Lambda, since the next one makes what this one missed.
 */
export const AUDIT_DIGESTER_FUNCTION = {
  entry: 'functions/audit-digester/handler.ts',
  timeoutSeconds: 300,
  memoryMb: 512,
  /** EventBridge's cron: minute 20 of every hour. */
  schedule: 'cron(20 * * * ? *)',
} as const;

/**
 * The rotation runner (decisions.md v1.3, "Rotation"): one step of one rotation per message of the rotation queue. A
 * step invokes a rotation function for at most 5 minutes (AWS's step timeout), so the function gets 6.
 */
export const ROTATION_FUNCTION = {
  entry: 'functions/rotation/handler.ts',
  timeoutSeconds: 360,
  memoryMb: 512,
  batchSize: 1,
  /** Rotations running at once, across every workspace. */
  maxConcurrency: 5,
} as const;

/** The rotation queue the runner consumes: a step not run after 3 receives goes to its dead-letter queue. */
export const ROTATION_QUEUE = {
  visibilityTimeoutSeconds: ROTATION_FUNCTION.timeoutSeconds + 60,
  maxReceiveCount: 3,
} as const;

/**
 * The sync worker (decisions.md v1.4, "Syncs"): one push of one sync per message of the sync queue. A push reads,
 * audits and sends at most a page of values to one platform; 120 s leaves room for Parameter Store's low rate.
 */
export const SYNC_WORKER_FUNCTION = {
  entry: 'functions/sync-worker/handler.ts',
  timeoutSeconds: 120,
  memoryMb: 512,
  batchSize: 5,
  /** Worker instances at most: bounds the parallel calls to the platforms and the table writes. */
  maxConcurrency: 5,
} as const;

/** The sync queue the sync worker consumes (a failed push reschedules itself, not by redrive). */
export const SYNC_QUEUE = /* @__PURE__ */ sixTimesItsWorker(SYNC_WORKER_FUNCTION);

/**
 * The audit stream worker (decisions.md v1.4, "Audit streams and tamper evidence"): a batch of stream messages, each
 * stream's entries sent in batches of at most 500 entries or 1 MB. Ten messages of at most 200,000 bytes of entries
 * fill about two receiver batches; a send has 10 s, so 60 s leaves room for several streams in one batch.
 */
export const AUDIT_STREAM_WORKER_FUNCTION = {
  entry: 'functions/audit-stream-worker/handler.ts',
  timeoutSeconds: 60,
  memoryMb: 512,
  batchSize: 10,
  /** Worker instances at most: bounds the parallel sends to receivers and the health writes. */
  maxConcurrency: 5,
} as const;

/** The audit stream queue (a failed send reschedules itself, not by redrive). */
export const AUDIT_STREAM_QUEUE = /* @__PURE__ */ sixTimesItsWorker(AUDIT_STREAM_WORKER_FUNCTION);

/** The delivery queue the worker consumes. */
export const DELIVERY_QUEUE = /* @__PURE__ */ sixTimesItsWorker(PIPELINE_FUNCTIONS['delivery-worker']);

/**
 * A worker's queue: AWS's guidance for SQS event sources, a visibility timeout of at least six times the function's,
 * and 5 receives before a message moves to the dead-letter queue.
 */
function sixTimesItsWorker(worker: { readonly timeoutSeconds: number }) {
  return { visibilityTimeoutSeconds: worker.timeoutSeconds * 6, maxReceiveCount: 5 } as const;
}

/** Where each route group's handler lives, relative to the project root (`export const handler`). */
export function handlerEntry(group: RouteGroup): string {
  return `functions/${group}/handler.ts`;
}

/**
 * Every function by name with its handler entry: the route groups, the pipeline, the rotation runner, the purger, the
 * sync worker, the digester and the audit stream worker.
 */
export const FUNCTION_ENTRIES: Readonly<
  Record<RouteGroup | PipelineFunction | 'rotation' | 'secret-purger' | 'sync-worker' | 'audit-digester' | 'audit-stream-worker', string>
> = {
  ...(Object.fromEntries((Object.keys(ROUTE_GROUPS) as RouteGroup[]).map((group) => [group, handlerEntry(group)])) as Record<
    RouteGroup,
    string
  >),
  ...(Object.fromEntries(Object.entries(PIPELINE_FUNCTIONS).map(([name, fn]) => [name, fn.entry])) as Record<PipelineFunction, string>),
  rotation: ROTATION_FUNCTION.entry,
  'secret-purger': SECRET_PURGER_FUNCTION.entry,
  'sync-worker': SYNC_WORKER_FUNCTION.entry,
  'audit-digester': AUDIT_DIGESTER_FUNCTION.entry,
  'audit-stream-worker': AUDIT_STREAM_WORKER_FUNCTION.entry,
};
