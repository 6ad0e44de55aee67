import { AsyncLocalStorage } from 'node:async_hooks';
import { addClientHooks, type AwsService } from '../../shared/clients/hooks.ts';

/**
 * Counting AWS calls for the bench and the budget tests. Importing this module instruments every AWS client the
 * process creates from then on (through the hooks of shared/clients/hooks.ts), so import it before the handlers.
 * Nothing here is imported by a Lambda function.
 */

/** One AWS request as an observer sees it: which service and operation, and what it consumed. */
export interface AwsCallEvent {
  /** The unit of work it was made for (set with `attributeCalls`), e.g. a route key; undefined outside any. */
  scope?: string | undefined;
  service: AwsService;
  operation: string;
  /** DynamoDB only: consumed capacity units, when the request asked for them. */
  readUnits?: number;
  writeUnits?: number;
}

type Observer = (event: AwsCallEvent) => void;

const observers = new Set<Observer>();

/**
 * Registers an observer of every AWS request made through this process's clients (the benchmark counts requests
 * and capacity units per operation with it). With no observer registered, nothing is added to a request.
 */
export function observeAwsCalls(observer: Observer): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

const scopes = new AsyncLocalStorage<string>();

/** Runs `work` so that the AWS requests it makes are reported with `scope` (the local API front uses route keys). */
export function attributeCalls<T>(scope: string, work: () => T): T {
  return scopes.run(scope, work);
}

/** Tells the observers about a request that did not go through an SDK client (the local keyring stands in for KMS). */
function reportAwsCall(event: AwsCallEvent): void {
  if (observers.size === 0) return;
  const scoped = { ...event, scope: scopes.getStore() };
  for (const observer of observers) observer(scoped);
}

interface MiddlewareStackLike {
  add(middleware: (next: (args: { input: Record<string, unknown> }) => Promise<{ output: unknown }>, context: { commandName?: string }) => (args: { input: Record<string, unknown> }) => Promise<{ output: unknown }>, options: { step: 'initialize'; name: string }): void;
}

/**
 * Adds the observing middleware to a client. It reports each request after it completes; for DynamoDB it asks for
 * `ReturnConsumedCapacity: TOTAL` (only while someone observes) and reports the units.
 */
function instrument<C extends { middlewareStack: unknown }>(client: C, service: AwsService): C {
  (client.middlewareStack as MiddlewareStackLike).add(
    (next, context) => async (args) => {
      if (observers.size === 0) return next(args);
      if (service === 'DynamoDB' && !('ReturnConsumedCapacity' in args.input)) args.input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      reportAwsCall({ service, operation, ...(service === 'DynamoDB' ? capacityOf(result.output, READS.has(operation)) : {}) });
      return result;
    },
    { step: 'initialize', name: 'observeAwsCalls' },
  );
  return client;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/** Units from `ConsumedCapacity`: split into read and write units, or (DynamoDB Local) a total for the operation's kind. */
function capacityOf(output: unknown, isRead: boolean): { readUnits: number; writeUnits: number } {
  const consumed = (output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
  const list = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number }[];
  let readUnits = 0;
  let writeUnits = 0;
  for (const entry of list) {
    if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
      readUnits += entry.ReadCapacityUnits ?? 0;
      writeUnits += entry.WriteCapacityUnits ?? 0;
    } else if (isRead) readUnits += entry.CapacityUnits ?? 0;
    else writeUnits += entry.CapacityUnits ?? 0;
  }
  return { readUnits, writeUnits };
}

addClientHooks({ client: instrument, standInCall: (service, operation) => reportAwsCall({ service, operation }) });
