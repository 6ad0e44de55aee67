/**
 * AWS list prices, us-east-1, as published on the AWS pricing pages (on-demand, first pricing tier) and known on
 * 2026-11-21; not fetched live. DynamoDB on-demand prices are those in force since the 2024-11-01 reduction.
 */
export const PRICES = {
  date: '2026-11-21',
  region: 'us-east-1',
  /** API Gateway HTTP API, per request (first 300 million a month). */
  httpApiRequest: 1.0 / 1e6,
  /** Lambda, per request. */
  lambdaRequest: 0.2 / 1e6,
  /** Lambda arm64, per GB-second. */
  lambdaArmGbSecond: 0.0000133334,
  /** DynamoDB on-demand, per write and read request unit. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** KMS, per API request ($0.03 per 10,000). */
  kmsRequest: 0.03 / 10_000,
  /** SQS standard queue, per request (64 KB chunk). */
  sqsRequest: 0.4 / 1e6,
  /** EventBridge Scheduler, per invocation. */
  schedulerInvocation: 1.0 / 1e6,
  /** The anchor: AWS Secrets Manager, per GetSecretValue call (plus $0.40 per secret per month). */
  secretsManagerGetSecretValue: 5.0 / 1e6,
} as const;

/** Memory the CDK stack gives each function (lib/service-function.ts default). */
export const LAMBDA_MEMORY_MB = 512;

export interface OperationCalls {
  dynamodbRequests: number;
  readUnits: number;
  writeUnits: number;
  kmsRequests: number;
  sqsRequests: number;
  schedulerRequests: number;
}

/** Dollars per million operations: API request (unless none), Lambda request and duration, DynamoDB units, KMS, SQS. */
export function costPerMillion(calls: OperationCalls, handlerMs: number, options: { viaApi: boolean; lambdaInvocations?: number }): number {
  const invocations = options.lambdaInvocations ?? 1;
  const perOperation =
    (options.viaApi ? PRICES.httpApiRequest : 0) +
    invocations * PRICES.lambdaRequest +
    (LAMBDA_MEMORY_MB / 1024) * (Math.max(1, Math.ceil(handlerMs)) / 1000) * PRICES.lambdaArmGbSecond +
    calls.writeUnits * PRICES.dynamoWriteUnit +
    calls.readUnits * PRICES.dynamoReadUnit +
    calls.kmsRequests * PRICES.kmsRequest +
    calls.sqsRequests * PRICES.sqsRequest +
    calls.schedulerRequests * PRICES.schedulerInvocation;
  return Math.round(perOperation * 1e6 * 1000) / 1000;
}
