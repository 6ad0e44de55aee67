// What the recordings of bench/scope-cpu-child.ts say of a key's AWS calls: their shapes, and what they read.
import { itemSize, readUnitsOf } from './billing.ts';
import type { Recording, Step } from './cpu-floor.ts';
import { ENTITY } from '../shared/platform/store/keys.ts';

type Input = Record<string, any>;
type Output = Record<string, any> | undefined;

/** DynamoDB's operation of each document-client command. */
const OPERATIONS: Record<string, string> = {
  GetCommand: 'GetItem',
  BatchGetCommand: 'BatchGetItem',
  QueryCommand: 'Query',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  BatchWriteCommand: 'BatchWriteItem',
  TransactWriteCommand: 'TransactWriteItems',
  TransactGetCommand: 'TransactGetItems',
};

/** One DynamoDB request as the comparison sees it: its operation and shape, e.g. `BatchGetItem 3 keys consistent`. */
function shapeOf(step: Extract<Step, { kind: 'dynamodb' }>): string {
  const input = step.input as Input;
  const operation = OPERATIONS[step.command] ?? step.command;
  switch (step.command) {
    case 'GetCommand':
      return `${operation}${input.ConsistentRead ? ' consistent' : ''}`;
    case 'BatchGetCommand':
      return Object.values(input.RequestItems as Record<string, Input>)
        .map((request) => `${operation} ${request.Keys.length} keys${request.ConsistentRead ? ' consistent' : ''}`)
        .join(' + ');
    case 'QueryCommand':
      return `${operation} ${input.IndexName ?? 'table'}${input.Limit ? ` limit ${input.Limit}` : ''}`;
    case 'TransactWriteCommand':
      return `${operation} ${(input.TransactItems as Input[]).map((item) => Object.keys(item)[0]).join('+')}`;
    default:
      return operation;
  }
}

/**
 * Bookkeeping that falls by the clock, not by the key's rules: a reveal's rate-limit lease, taken when the
 * credential's or the workspace's lease of the minute runs out (shared/secrets/reveal-limit-store.ts), and a credential's
 * `lastUsedAt`, written at most once a minute (shared/workspaces/workspace-store.ts `touchCredential`).
 */
function isBookkeeping(step: Extract<Step, { kind: 'dynamodb' }>): boolean {
  const input = step.input as Input;
  const touches = (update: Input | undefined) =>
    typeof update?.UpdateExpression === 'string' && update.UpdateExpression.includes('lastUsedAt');
  if (step.command === 'UpdateCommand') return input.ExpressionAttributeValues?.[':type'] === ENTITY.revealCounter || touches(input);
  return step.command === 'TransactWriteCommand' && (input.TransactItems as Input[]).every((item) => touches(item.Update));
}

/** The AWS calls of a key's recorded requests. */
export interface CallLists {
  /**
   * Each request's list (DynamoDB requests in order, then its KMS calls; bookkeeping left out), and how many of the
   * recorded requests made that list. Two keys whose counts are equal made the same calls.
   */
  lists: Record<string, number>;
  /** Bookkeeping requests per request (rate-limit leases, `lastUsedAt`), left out of the lists. */
  bookkeepingPerRequest: number;
}

/** The AWS calls of the recorded requests (see `CallLists`); `kms` holds each request's KMS calls. */
export function callsOf(recording: Recording, kms: string[][]): CallLists {
  const counts: Record<string, number> = {};
  let bookkeeping = 0;
  recording.forEach((steps, i) => {
    const requests = steps.filter((s): s is Extract<Step, { kind: 'dynamodb' }> => s.kind === 'dynamodb');
    bookkeeping += requests.filter(isBookkeeping).length;
    const list = [...requests.filter((s) => !isBookkeeping(s)).map(shapeOf), ...(kms[i] ?? [])].join(', ') || '(none)';
    counts[list] = (counts[list] ?? 0) + 1;
  });
  const lists = Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { lists, bookkeepingPerRequest: Math.round((bookkeeping / Math.max(1, recording.length)) * 100) / 100 };
}

/** Whether two keys' recorded requests made the same lists of calls, as often (bookkeeping aside). */
export const compareCalls = (a: CallLists, b: CallLists) => JSON.stringify(a.lists) === JSON.stringify(b.lists);

/** The items a read answered (a Query's items are the index's copies when it reads an index). */
function itemsRead(step: Extract<Step, { kind: 'dynamodb' }>): { sizes: number[]; consistent: boolean; summed: boolean }[] {
  const input = step.input as Input;
  const output = step.output as Output;
  switch (step.command) {
    case 'GetCommand':
      return [{ sizes: output?.Item ? [itemSize(output.Item)] : [0], consistent: input.ConsistentRead === true, summed: false }];
    case 'BatchGetCommand':
      return Object.entries(input.RequestItems as Record<string, Input>).map(([table, request]) => ({
        sizes: ((output?.Responses?.[table] ?? []) as Input[]).map(itemSize),
        consistent: request.ConsistentRead === true,
        summed: false,
      }));
    case 'QueryCommand':
      return [{ sizes: ((output?.Items ?? []) as Input[]).map(itemSize), consistent: input.ConsistentRead === true, summed: true }];
    default:
      return [];
  }
}

/**
 * Bytes and read units per request of what the recorded reads answered, by the billing rules of bench/billing.ts
 * (a Query rounds its items' sum up once). From the answers alone: a read with a projection or a Query's filter
 * would be billed more, so this compares two keys' reads, it does not price them (bench/scope-reads.ts does).
 */
export function readsOf(recording: Recording): { bytesPerRequest: number; readUnitsPerRequest: number } {
  let bytes = 0;
  let units = 0;
  for (const steps of recording) {
    for (const step of steps) {
      if (step.kind !== 'dynamodb') continue;
      for (const read of itemsRead(step)) {
        bytes += read.sizes.reduce((sum, size) => sum + size, 0);
        units += read.summed
          ? readUnitsOf(
              read.sizes.reduce((sum, size) => sum + size, 0),
              read.consistent,
            )
          : read.sizes.reduce((sum, size) => sum + readUnitsOf(size, read.consistent), 0);
      }
    }
  }
  const n = Math.max(1, recording.length);
  return { bytesPerRequest: Math.round(bytes / n), readUnitsPerRequest: Math.round((units / n) * 100) / 100 };
}

/**
 * Marks every credential in the recorded answers as used a moment ago (an hour ahead of the clock): a key in steady
 * use writes its `lastUsedAt` once a minute, not on every request, so the replay never owes a write the recording
 * does not hold, however long after the recording it runs.
 */
export function freshCredentials(recording: Recording): void {
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
      for (const [name, inner] of Object.entries(value)) {
        if (name === 'lastUsedAt' && typeof inner === 'string') (value as Record<string, unknown>)[name] = soon;
        else visit(inner);
      }
    }
  };
  for (const steps of recording) for (const step of steps) if (step.kind === 'dynamodb') visit(step.output);
}
