import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { announceClient } from './hooks.ts';
import { clientOptions, type ClientTarget } from './options.ts';

/**
 * The document client of a container. Created once at module scope by the handlers (never per request);
 * `endpoint` is set only by the local stack.
 */
export function makeDocumentClient(options: ClientTarget = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    ...clientOptions(options),
    maxAttempts: 3,
  });
  announceClient(client, 'DynamoDB');
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
}
