import type { StreamedAuditEntry } from '../../audit/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { AuditStreamReader } from '../stream-store.ts';
import { streamMessages, type StreamMessage, type StreamQueue } from './stream-queue.ts';

/**
 * The stream fan-out's side of audit streams (decisions.md v1.4, "Audit streams and tamper evidence"): every audit
 * entry the table's stream inserts is queued for each active stream of its workspace, within a minute (the worker
 * batches and sends them). Which workspaces have streams is read per workspace and kept for `ROUTING_TTL_MS` in the
 * container: a workspace without streams costs one Query of its streams (0.5 RRU) per container and half-minute, not
 * one per entry, and a reveal's own cost does not move.
 */

/** How long a container trusts what it read of a workspace's streams: a new stream gets entries within this. */
export const ROUTING_TTL_MS = 30_000;
/** The most workspaces a container remembers the streams of (the oldest read is forgotten first). */
const ROUTING_CAPACITY = 10_000;

/**
 * The active streams of a workspace, as a container last read them; `fresh` reads them again (consistently) whatever
 * the container knows: the dispatch asks it when a batch holds a stream's own create or change, so a new or enabled
 * stream gets the entries that follow it rather than only those after the next half-minute.
 */
export function makeStreamRouting(reader: Pick<AuditStreamReader, 'listAuditStreamsOfWorkspace'>, clock: Clock) {
  const known = new Map<string, { at: number; streams: Promise<string[]> }>();
  return async (workspaceId: string, fresh = false): Promise<string[]> => {
    const now = clock.now();
    const seen = known.get(workspaceId);
    if (seen && !fresh && now - seen.at < ROUTING_TTL_MS) return seen.streams;
    const streams = reader
      .listAuditStreamsOfWorkspace(workspaceId, fresh)
      .then((all) => all.filter((stream) => stream.status === 'active').map((stream) => stream.id));
    known.delete(workspaceId);
    known.set(workspaceId, { at: now, streams });
    if (known.size > ROUTING_CAPACITY) known.delete(known.keys().next().value!);
    // A failed read is not kept: the next batch reads again.
    streams.catch(() => known.get(workspaceId)?.streams === streams && known.delete(workspaceId));
    return streams;
  };
}

/** The entries of a batch by workspace, each with the index of the first stream record that holds one of them. */
function byWorkspace(batch: readonly (readonly StreamedAuditEntry[])[]) {
  const groups = new Map<string, { firstRecord: number; entries: StreamedAuditEntry[] }>();
  batch.forEach((entries, record) => {
    for (const entry of entries) {
      const group = groups.get(entry.workspaceId) ?? { firstRecord: record, entries: [] };
      group.entries.push(entry);
      groups.set(entry.workspaceId, group);
    }
  });
  return groups;
}

/**
 * Queues a stream batch's audit entries (by record: `insertedAudits` of each) for every active stream of their
 * workspaces. Answers the index of the first record it could not finish (a routing read or SQS failed for its
 * workspace), Infinity when all are queued: the fan-out retries the batch from there, and a receiver may see an
 * entry twice (at least once; each has its `id` to drop a repeat by).
 */
export function makeStreamDispatch(deps: {
  streamsOf: (workspaceId: string, fresh: boolean) => Promise<string[]>;
  queue: StreamQueue;
  /** Told of a workspace whose entries could not be queued (its id and the error's name: never an entry). */
  warn: (message: string, context: Record<string, unknown>) => void;
}) {
  async function dispatchWorkspace(workspaceId: string, entries: StreamedAuditEntry[]): Promise<boolean> {
    // A stream made, changed or deleted in this batch: its workspace's streams read again, before its next entries.
    const streams = await deps.streamsOf(
      workspaceId,
      entries.some((entry) => entry.action.startsWith('audit_stream.')),
    );
    if (streams.length === 0) return true;
    const messages: StreamMessage[] = streams.flatMap((streamId) => streamMessages(workspaceId, streamId, entries));
    return (await deps.queue.enqueueAll(messages)).length === 0;
  }
  return async (batch: readonly (readonly StreamedAuditEntry[])[]): Promise<number> => {
    let failedAt = Number.POSITIVE_INFINITY;
    await Promise.all(
      [...byWorkspace(batch)].map(async ([workspaceId, { firstRecord, entries }]) => {
        const done = await dispatchWorkspace(workspaceId, entries).catch((error: unknown) => {
          deps.warn('audit stream entries not queued', { workspaceId, errorName: (error as Error | null)?.name });
          return false;
        });
        if (!done) failedAt = Math.min(failedAt, firstRecord);
      }),
    );
    return failedAt;
  };
}
