import { counts, exactly, readBody } from '../deliveries/queue-body.ts';

/*
 * The statistics rollup's queue message (shared/webhooks/stats/stats-rollup.ts), apart from delivery-message.ts: only the
 * functions that send or read one load it (the worker reads it where `parseQueueMessage` reads none).
 */

/** What the queue carries to roll a workspace's delivery statistics up to a bucket's end (shared/webhooks/stats/stats-rollup.ts). */
export interface StatsRollupMessage {
  workspaceId: string;
  /** The end of the last bucket to roll up (epoch ms). */
  rollupUntil: number;
}

const ROLLUP_KEYS = ['workspaceId', 'rollupUntil'] as const;

/** True for a well-formed rollup message: exactly its two keys, each well formed. */
export function isStatsRollupMessage(value: unknown): value is StatsRollupMessage {
  const record = exactly(value, ROLLUP_KEYS);
  return !!record && counts(record.workspaceId, record.rollupUntil);
}

/** The body of a statistics rollup's message, keys always in the same order. */
export function formatStatsRollupMessage(message: StatsRollupMessage): string {
  if (!isStatsRollupMessage(message)) throw new Error('Invalid rollup message: expected a ws_ id and a time');
  return JSON.stringify({ workspaceId: message.workspaceId, rollupUntil: message.rollupUntil });
}

/** A rollup's message body read strictly (exactly `workspaceId` and `rollupUntil`), or undefined for anything else. */
export function parseStatsRollupMessage(body: string): StatsRollupMessage | undefined {
  const value = readBody(body);
  return isStatsRollupMessage(value) ? { workspaceId: value.workspaceId, rollupUntil: value.rollupUntil } : undefined;
}
