import { observeAwsCalls, type AwsCallEvent } from '../bin/local/instrumentation.ts';
import type { OperationCalls } from './prices.ts';

/** Collects the AWS requests made under given scopes (route keys, function names) while an operation runs. */
export function makeCallRecorder() {
  const events: AwsCallEvent[] = [];
  const stop = observeAwsCalls((event) => events.push(event));
  return {
    stop,
    /** Runs `work` and sums the requests reported under `scopes` meanwhile (after `settleMs` for stragglers). */
    async measure(scopes: readonly string[], work: () => Promise<unknown>, settleMs = 0): Promise<OperationCalls> {
      events.length = 0;
      await work();
      if (settleMs) await new Promise((resolve) => setTimeout(resolve, settleMs));
      const mine = events.filter((event) => event.scope && scopes.includes(event.scope));
      const count = (service: AwsCallEvent['service']) => mine.filter((event) => event.service === service).length;
      return {
        dynamodbRequests: count('DynamoDB'),
        readUnits: round(mine.reduce((sum, event) => sum + (event.readUnits ?? 0), 0)),
        writeUnits: round(mine.reduce((sum, event) => sum + (event.writeUnits ?? 0), 0)),
        kmsRequests: count('KMS'),
        sqsRequests: count('SQS'),
        schedulerRequests: count('Scheduler'),
      };
    },
  };
}

const round = (value: number) => Math.round(value * 100) / 100;
