import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { instrument } from './instrumentation.ts';

/**
 * The document client of a container. Created once at module scope by the handlers (never per request);
 * `endpoint` is set only by the local stack.
 */
export function makeDocumentClient(options: { endpoint?: string | undefined; region?: string } = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    ...(options.endpoint
      ? { endpoint: options.endpoint, region: options.region ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : options.region
        ? { region: options.region }
        : {}),
    maxAttempts: 3,
  });
  instrument(client, 'DynamoDB');
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
}
