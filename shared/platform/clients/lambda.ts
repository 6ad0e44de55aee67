import { LambdaClient } from '@aws-sdk/client-lambda';
import { announceClient } from './hooks.ts';
import { clientOptions, type ClientTarget } from './options.ts';

/**
 * The Lambda client of a container (the rotation runner invokes customers' rotation functions with it), created once
 * per container, never per invocation. No request timeout of its own: a synchronous invocation lasts as long as the
 * function runs, and the caller aborts it at the step's timeout. `endpoint` would be set only by a local stand-in.
 */
export function makeLambdaClient(options: ClientTarget = {}): LambdaClient {
  return announceClient(
    new LambdaClient({
      ...clientOptions(options),
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 3_000 },
    }),
    'Lambda',
  );
}
