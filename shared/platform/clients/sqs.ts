import { announceClient } from './hooks.ts';
import { clientOptions, type ClientTarget } from './options.ts';
import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * The SQS client of a container. Created once at module scope by the functions (never per request); `endpoint` is
 * set only by the local stack (fauxqs), which accepts any credentials.
 */
export function makeSqsClient(options: ClientTarget = {}): SQSClient {
  return announceClient(
    new SQSClient({
      ...clientOptions(options),
      maxAttempts: 3,
    }),
    'SQS',
  );
}
