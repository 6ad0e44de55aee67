import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { observeAwsCalls, type AwsCallEvent, type AwsCallInspector } from '../bin/local/instrumentation.ts';
import { clientOptions } from '../shared/platform/clients/options.ts';
import { makeBillingMeter } from './billing.ts';
import type { OperationCalls } from './prices.ts';

/**
 * Prices AWS requests by AWS's billing rules: DynamoDB through the billing meter (a client of its own, which nobody
 * observes, reads the items each request touches), SQS per started 64 KB of payload.
 */
export function makeAwsInspector(dynamodbEndpoint: string, tableName: string): AwsCallInspector {
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient(clientOptions({ endpoint: dynamodbEndpoint })), {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  const meter = makeBillingMeter(raw, tableName);
  return async (service, operation, input) => {
    if (service === 'DynamoDB') {
      const bill = await meter.prepare(operation, input);
      return async (output) => ({ ...(await bill(output)), itemsRead: itemsRead(operation, output) });
    }
    if (service === 'SQS') {
      const entries = (input.Entries as { MessageBody?: string }[] | undefined) ?? [input as { MessageBody?: string }];
      const bytes = entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.MessageBody ?? ''), 0);
      return async () => ({ sqsRequests: Math.max(1, Math.ceil(bytes / (64 * 1024))) });
    }
    return undefined;
  };
}

/** Items a read request read: a Query's evaluated items (its filter discards some after reading them), a get's found ones. */
function itemsRead(operation: string, output: Record<string, unknown> | undefined): number {
  if (!output) return 0;
  if (operation === 'Query' || operation === 'Scan') return (output.ScannedCount as number | undefined) ?? 0;
  if (operation === 'GetItem') return output.Item ? 1 : 0;
  if (operation === 'BatchGetItem')
    return Object.values((output.Responses as Record<string, unknown[]> | undefined) ?? {}).reduce((sum, items) => sum + items.length, 0);
  return 0;
}

/** Collects the AWS requests made under given scopes (route keys, function names) while an operation runs. */
export function makeCallRecorder(inspect?: AwsCallInspector) {
  const events: AwsCallEvent[] = [];
  let measuring = false;
  // The inspector reads around every request it prices: only while an operation is being measured.
  const stop = observeAwsCalls((event) => events.push(event), {
    ...(inspect && { inspect: (...args) => (measuring ? inspect(...args) : Promise.resolve(undefined)) }),
  });
  return {
    stop,
    /** Runs `work` and sums the requests reported under `scopes` meanwhile (after `settleMs` for stragglers), per run when `runs` > 1. */
    async measure(scopes: readonly string[], work: () => Promise<unknown>, settleMs = 0, runs = 1): Promise<OperationCalls> {
      events.length = 0;
      measuring = true;
      try {
        for (let i = 0; i < runs; i++) await work();
        if (settleMs) await new Promise((resolve) => setTimeout(resolve, settleMs));
      } finally {
        measuring = false;
      }
      const mine = events.filter((event) => event.scope && scopes.includes(event.scope));
      const count = (service: AwsCallEvent['service']) => mine.filter((event) => event.service === service).length / runs;
      const sum = (pick: (event: AwsCallEvent) => number | undefined) =>
        round(mine.reduce((total, event) => total + (pick(event) ?? 0), 0) / runs);
      return {
        dynamodbRequests: count('DynamoDB'),
        operations: [...new Set(mine.filter((event) => event.service === 'DynamoDB').map((event) => event.operation))],
        readUnits: sum((event) => event.readUnits),
        writeUnits: sum((event) => event.writeUnits),
        billedReadUnits: sum((event) => event.billed?.readUnits),
        billedWriteUnits: sum((event) => event.billed?.writeUnits),
        billedIndexWriteUnits: sum((event) => event.billed?.indexWriteUnits),
        itemsRead: sum((event) => event.billed?.itemsRead),
        kmsRequests: count('KMS'),
        sqsRequests: count('SQS'),
        sqsBilledRequests: sum((event) => (event.service === 'SQS' ? (event.billed?.sqsRequests ?? 1) : 0)),
        schedulerRequests: count('Scheduler'),
      };
    },
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000;
