import type { StreamedAuditEntry } from '../../audit/index.ts';
import type { Dependent } from '../../references/index.ts';
import type { SyncMessage, SyncQueue } from '../sync-queue.ts';
import type { SyncRecord } from '../sync-records.ts';

/**
 * The syncs' side of the stream fan-out (decisions.md v1.4, "Syncs"): each change of a secret's current value, and
 * of every secret whose resolved value depends on it, queues one message per sync of its environment whose pattern
 * matches the key. A workspace with no change in a batch costs nothing; one with changes costs one Query of its
 * syncs (at most 100), and the walk of the reverse index only when it has a sync. A message carries keys, never a
 * value: the worker pushes what is current when it runs, so a retried or late message never sends an older value.
 */

/** An audit entry as the stream carries it: with its workspace. */
export type StreamedAudit = StreamedAuditEntry;

/** The audit actions that change a secret's current value (a label move of AWSCURRENT and a rollback audit `secret.rotate`). */
const VALUE_CHANGES: ReadonlySet<string> = new Set(['secret.create', 'secret.rotate', 'secret.delete', 'secret.restore']);

export interface SyncTriggerDeps {
  /** Every sync of a workspace (syncs' store, one Query). */
  listSyncs: (workspaceId: string) => Promise<readonly SyncRecord[]>;
  /** The secrets whose value depends on the changed one (the references' reverse index, walked level by level). */
  dependentsOf: (audit: StreamedAudit) => Promise<readonly Dependent[]>;
  queue: SyncQueue;
}

/** A changed key of an environment, and the first stream record that changed it. */
interface Change {
  environmentId: string;
  key: string;
  at: number;
  record: number;
}

/**
 * Queues the syncs' messages for a batch of stream records (each record's inserted audit entries, in order).
 * Answers the index of the first record whose messages could not all be queued (the fan-out's retry point), or
 * Infinity when every message was queued.
 */
export function makeSyncTrigger(deps: SyncTriggerDeps) {
  return async (records: readonly (readonly StreamedAudit[])[]): Promise<number> => {
    const byWorkspace = new Map<string, { audits: { audit: StreamedAudit; record: number }[] }>();
    records.forEach((audits, record) => {
      for (const audit of audits) {
        if (!VALUE_CHANGES.has(audit.action)) continue;
        const entry = byWorkspace.get(audit.workspaceId) ?? { audits: [] };
        entry.audits.push({ audit, record });
        byWorkspace.set(audit.workspaceId, entry);
      }
    });
    const outcomes = await Promise.all(
      [...byWorkspace].map(async ([workspaceId, { audits }]) => {
        try {
          await queueWorkspace(workspaceId, audits);
          return Infinity;
        } catch {
          return Math.min(...audits.map(({ record }) => record));
        }
      }),
    );
    return Math.min(Infinity, ...outcomes);
  };

  /** One workspace's changes: its syncs read once, the dependents walked only when it has a live one. */
  async function queueWorkspace(workspaceId: string, audits: readonly { audit: StreamedAudit; record: number }[]) {
    const syncs = (await deps.listSyncs(workspaceId)).filter((sync) => sync.status !== 'paused');
    if (syncs.length === 0) return;
    const changes: Change[] = [];
    for (const { audit, record } of audits) {
      const { environmentId, key } = audit.metadata as { environmentId?: string; key?: string };
      const at = Date.parse(audit.createdAt);
      if (environmentId && key) changes.push({ environmentId, key, at, record });
      for (const dependent of await deps.dependentsOf(audit))
        changes.push({ environmentId: dependent.environmentId, key: dependent.key, at, record });
    }
    // The matcher loads with the first workspace that has a sync: a stream without any never reads its chunk.
    const { globMatcher } = await import('../../platform/glob.ts');
    const messages = syncs.flatMap((sync) => messageOf(workspaceId, sync, changes, globMatcher([sync.keys])));
    await Promise.all(messages.map((message) => deps.queue.enqueue(message)));
  }
}

/** The message of one sync for the changes of its environment that its pattern matches; none when no key matches. */
function messageOf(workspaceId: string, sync: SyncRecord, changes: readonly Change[], matches: (key: string) => boolean): SyncMessage[] {
  const mine = changes.filter((change) => change.environmentId === sync.environmentId && matches(change.key));
  if (mine.length === 0) return [];
  const keys = [...new Set(mine.map((change) => change.key))].sort();
  return [{ workspaceId, syncId: sync.id, keys, at: Math.max(...mine.map((change) => change.at)), attempt: 1 }];
}
