import { instrument } from './instrumentation.ts';
import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * The SQS client of a container. Created once at module scope by the functions (never per request); `endpoint` is
 * set only by the local stack (fauxqs), which accepts any credentials.
 */
export function makeSqsClient(options: { endpoint?: string | undefined; region?: string } = {}): SQSClient {
  return instrument(new SQSClient({
    ...(options.endpoint
      ? { endpoint: options.endpoint, region: options.region ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : options.region
        ? { region: options.region }
        : {}),
    maxAttempts: 3,
  }), 'SQS');
}
