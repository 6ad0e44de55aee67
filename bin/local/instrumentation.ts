import { AsyncLocalStorage } from 'node:async_hooks';
import { addClientHooks, type AwsService } from '../../shared/platform/clients/hooks.ts';

/**
 * Counting AWS calls for the bench and the budget tests. Importing this module instruments every AWS client the
 * process creates from then on (through the hooks of shared/platform/clients/hooks.ts), so import it before the handlers.
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
  /** What an inspector (see `observeAwsCalls`) found the request to cost, e.g. AWS-billed units. */
  billed?: Record<string, number>;
  /** The request failed (a failed condition, a cancelled transaction): still a request, and still billed. */
  failed?: boolean;
}

type Observer = (event: AwsCallEvent) => void;

/**
 * Looks at a request before it is sent and answers what to call with its output (undefined when it failed) once it
 * completed; what that answers becomes the event's `billed`. It may make requests of its own with a client nobody
 * observes (reading the items a write replaces, say); they delay the request, so inspect only while measuring.
 */
export type AwsCallInspector = (
  service: AwsService,
  operation: string,
  input: Record<string, unknown>,
) => Promise<((output: Record<string, unknown> | undefined) => Promise<Record<string, number>>) | undefined>;

const observers = new Set<Observer>();
let inspector: AwsCallInspector | undefined;

/**
 * Registers an observer of every AWS request made through this process's clients (the benchmark counts requests
 * and capacity units per operation with it), and optionally the one inspector that prices them. With no observer
 * registered, nothing is added to a request.
 */
export function observeAwsCalls(observer: Observer, options: { inspect?: AwsCallInspector } = {}): () => void {
  observers.add(observer);
  if (options.inspect) inspector = options.inspect;
  return () => {
    observers.delete(observer);
    if (inspector === options.inspect) inspector = undefined;
  };
}

const scopes = new AsyncLocalStorage<string>();

/** Runs `work` so that the AWS requests it makes are reported with `scope` (the local API front uses route keys). */
export function attributeCalls<T>(scope: string, work: () => T): T {
  if (invocationObservers.size === 0) return scopes.run(scope, work);
  const started = performance.now();
  const done = () => {
    for (const observer of invocationObservers) observer({ scope, wallMs: performance.now() - started });
  };
  const result = scopes.run(scope, work);
  if (result instanceof Promise) return result.finally(done) as T;
  done();
  return result;
}

/** One handler invocation the local stack made (a route, a poller's batch): its scope and wall time. */
export interface InvocationEvent {
  scope: string;
  wallMs: number;
}

const invocationObservers = new Set<(event: InvocationEvent) => void>();

/** Registers an observer of every handler invocation made through `attributeCalls` (the bench's Lambda durations). */
export function observeInvocations(observer: (event: InvocationEvent) => void): () => void {
  invocationObservers.add(observer);
  return () => invocationObservers.delete(observer);
}

/** Tells the observers about a request that did not go through an SDK client (the local keyring stands in for KMS). */
function reportAwsCall(event: AwsCallEvent, scope = scopes.getStore()): void {
  if (observers.size === 0) return;
  const scoped = { ...event, scope };
  for (const observer of observers) observer(scoped);
}

interface MiddlewareStackLike {
  add(
    middleware: (
      next: (args: { input: Record<string, unknown> }) => Promise<{ output: unknown }>,
      context: { commandName?: string },
    ) => (args: { input: Record<string, unknown> }) => Promise<{ output: unknown }>,
    options: { step: 'initialize'; name: string },
  ): void;
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
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const scope = scopes.getStore();
      const bill = await inspector?.(service, operation, args.input);
      let result: { output: unknown };
      try {
        result = await next(args);
      } catch (error) {
        const billed = await bill?.(undefined);
        reportAwsCall({ service, operation, failed: true, ...(billed ? { billed } : {}) }, scope);
        throw error;
      }
      const billed = await bill?.(result.output as Record<string, unknown>);
      reportAwsCall(
        {
          service,
          operation,
          ...(service === 'DynamoDB' ? capacityOf(result.output, READS.has(operation)) : {}),
          ...(billed ? { billed } : {}),
        },
        scope,
      );
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
  const list = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as {
    ReadCapacityUnits?: number;
    WriteCapacityUnits?: number;
    CapacityUnits?: number;
  }[];
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
