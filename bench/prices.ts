/**
 * AWS list prices, us-east-1, as published on the AWS pricing pages (on-demand, first pricing tier, no free tier)
 * and known on 2026-11-23; not fetched live. DynamoDB on-demand prices are those in force since the 2024-11-01
 * reduction; Lambda bills the INIT phase like the handler since 2025-08-01.
 */
export const PRICES = {
  date: '2026-11-23',
  region: 'us-east-1',
  /** API Gateway HTTP API, per request (first 300 million a month), metered in 512 KB increments. */
  httpApiRequest: 1.0 / 1e6,
  /** Lambda, per request. */
  lambdaRequest: 0.2 / 1e6,
  /** Lambda arm64, per GB-second. */
  lambdaArmGbSecond: 0.0000133334,
  /** DynamoDB on-demand, per write and read request unit. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** DynamoDB storage and continuous backups (point-in-time recovery), per GB-month. */
  dynamoStorageGbMonth: 0.25,
  dynamoPitrGbMonth: 0.2,
  /** KMS, per API request ($0.03 per 10,000), and per customer-managed key and month. */
  kmsRequest: 0.03 / 10_000,
  kmsKeyMonth: 1.0,
  /** SQS standard queue, per request (each 64 KB chunk of a payload is one request). */
  sqsRequest: 0.4 / 1e6,
  /** EventBridge Scheduler, per invocation. */
  schedulerInvocation: 1.0 / 1e6,
  /** CloudWatch: a dashboard, a standard-resolution alarm, a custom metric, per month; logs per GB ingested and stored. */
  dashboardMonth: 3.0,
  alarmMonth: 0.1,
  customMetricMonth: 0.3,
  logsIngestedGb: 0.5,
  logsStoredGbMonth: 0.03,
  /** The anchor: AWS Secrets Manager, per secret and month, and per API call ($0.05 per 10,000). */
  secretsManagerSecretMonth: 0.4,
  secretsManagerCall: 0.05 / 10_000,
  /** BatchGetSecretValue returns at most this many secrets per call. */
  secretsManagerBatchSize: 20,
  /** EventBridge API destinations, per invocation (how Secrets Manager changes would reach an HTTPS endpoint). */
  apiDestinationInvocation: 0.2 / 1e6,
} as const;

/** Memory the CDK stack gives each API function (shared/platform/functions.ts API_FUNCTION). */
export const LAMBDA_MEMORY_MB = 512;

/** The share of a vCPU Lambda gives a function: proportional to memory, one full vCPU at 1,769 MB. */
export const cpuShare = (memoryMb: number) => Math.min(1, memoryMb / 1769);

export interface OperationCalls {
  dynamodbRequests: number;
  /** DynamoDB operations made, in order of first use. */
  operations?: string[];
  /** DynamoDB Local's consumed capacity (kept for comparison; it bills transactions like plain writes). */
  readUnits: number;
  writeUnits: number;
  /** Units at AWS billing (bench/billing.ts); write units include index writes. */
  billedReadUnits: number;
  billedWriteUnits: number;
  billedIndexWriteUnits: number;
  /** Items the reads read (a Query's evaluated items, a get's found items), when priced by bench/calls.ts. */
  itemsRead?: number;
  kmsRequests: number;
  sqsRequests: number;
  /** SQS requests as billed (64 KB chunks). */
  sqsBilledRequests: number;
  schedulerRequests: number;
}

/** How an operation reaches AWS besides its own requests. */
export interface Invocation {
  /** Through API Gateway (one request per started 512 KB of request and answer). */
  apiBytes?: number | undefined;
  /** Lambda invocations per operation (a share when a batch serves several). */
  lambdaInvocations: number;
  /** Billed Lambda duration per operation, ms, summed over its invocations (rounded up to 1 ms each). */
  durationMs: number;
  memoryMb?: number;
}

/** Each count of `calls` per unit (a delivery, an audit entry, a digest): divided by `units`, to three decimals. */
export function perUnit(calls: OperationCalls, units: number): OperationCalls {
  const scaled = { ...calls } as Record<string, unknown>;
  for (const [field, value] of Object.entries(calls))
    if (typeof value === 'number') scaled[field] = Math.round((value / units) * 1000) / 1000;
  return scaled as unknown as OperationCalls;
}

/**
 * Dollars per million operations at AWS billing: API request, Lambda request and arm64 duration, DynamoDB units as
 * billed (transactions doubled, index writes, 1 KB and 4 KB steps), KMS, SQS chunks, Scheduler.
 */
export function costPerMillion(calls: OperationCalls, invocation: Invocation): number {
  const apiRequests = invocation.apiBytes === undefined ? 0 : Math.max(1, Math.ceil(invocation.apiBytes / (512 * 1024)));
  const perOperation =
    apiRequests * PRICES.httpApiRequest +
    invocation.lambdaInvocations * PRICES.lambdaRequest +
    ((invocation.memoryMb ?? LAMBDA_MEMORY_MB) / 1024) * (invocation.durationMs / 1000) * PRICES.lambdaArmGbSecond +
    calls.billedWriteUnits * PRICES.dynamoWriteUnit +
    calls.billedReadUnits * PRICES.dynamoReadUnit +
    calls.kmsRequests * PRICES.kmsRequest +
    calls.sqsBilledRequests * PRICES.sqsRequest +
    calls.schedulerRequests * PRICES.schedulerInvocation;
  return Math.round(perOperation * 1e6 * 1000) / 1000;
}

/**
 * Lambda duration in AWS from a local measurement: the waiting part stays, the CPU part stretches by the inverse of
 * the function's vCPU share (512 MB is under a third of a core), rounded up to the next millisecond.
 */
export function lambdaDurationMs(wallMs: number, cpuMs: number | null, memoryMb = LAMBDA_MEMORY_MB): number {
  const cpu = Math.min(cpuMs ?? 0, wallMs);
  return Math.ceil(wallMs - cpu + cpu / cpuShare(memoryMb));
}
