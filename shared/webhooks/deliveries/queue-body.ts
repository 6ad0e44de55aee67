import { isId } from '../../platform/ids.ts';

/*
 * Reading a queue message's body strictly, for each kind of message the worker takes (delivery-message.ts,
 * stats-message.ts): a leaf both import, so neither imports the other.
 */

/** A queue message body's JSON: undefined for anything not a string of at most 1 KB that parses. */
export function readBody(body: string): unknown {
  if (typeof body !== 'string' || body.length > 1024) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The record of `value` when it is a plain object with exactly `keys`, else undefined. */
export function exactly(value: unknown, keys: readonly string[]): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  return Object.keys(record).length === keys.length && keys.every((key) => Object.hasOwn(record, key)) ? record : undefined;
}

/** True for a workspace id and a whole number from 0 on (a step, a time). */
export const counts = (workspaceId: unknown, n: unknown) =>
  typeof workspaceId === 'string' && isId('workspace', workspaceId) && Number.isSafeInteger(n) && (n as number) >= 0;
