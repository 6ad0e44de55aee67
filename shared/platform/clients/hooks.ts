/**
 * The one seam through which a host process (the local stack, the bench, the budget tests) may watch the AWS calls
 * of the handlers it runs. Lambda never registers a hook, so in AWS this is a loop over an empty list; the
 * measuring code itself lives in bin/local/instrumentation.ts and never reaches a Lambda bundle.
 */

export type AwsService = 'DynamoDB' | 'KMS' | 'SQS' | 'Scheduler' | 'Lambda' | 'S3';

export interface ClientHooks {
  /** Called with every AWS SDK client this process creates, before its first request. */
  client?(client: { middlewareStack: unknown }, service: AwsService): void;
  /** Called for each request of a stand-in that is no SDK client (the local keyring, for KMS). */
  standInCall?(service: AwsService, operation: string): void;
}

const registered: ClientHooks[] = [];

/** Registers hooks for the clients created from now on; answers the function that removes them. */
export function addClientHooks(hooks: ClientHooks): () => void {
  registered.push(hooks);
  return () => void registered.splice(registered.indexOf(hooks), 1);
}

/** Hands a new client to the registered hooks and answers it. */
export function announceClient<C extends { middlewareStack: unknown }>(client: C, service: AwsService): C {
  for (const hooks of registered) hooks.client?.(client, service);
  return client;
}

/** Tells the registered hooks about a stand-in's request. */
export function announceStandInCall(service: AwsService, operation: string): void {
  for (const hooks of registered) hooks.standInCall?.(service, operation);
}
