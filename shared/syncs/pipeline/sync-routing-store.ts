import { patterns } from '../../platform/store/keys.ts';
import { queryAll } from '../../platform/store/query.ts';
import type { Db } from '../../platform/store/send.ts';
import type { SyncRecord } from '../sync-records.ts';

/**
 * What the stream fan-out reads of syncs to route a change (decisions.md v1.4, "Syncs"): apart from the worker's
 * store (sync-run-store.ts), so the fan-out's bundle carries no more than this Query.
 */
export function makeSyncRoutingStore(db: Db) {
  return {
    /** Every sync of a workspace (at most 100: one Query), as the stream fan-out routes a change to them. */
    async listSyncsOfWorkspace(workspaceId: string): Promise<SyncRecord[]> {
      // Eventually consistent: a sync made a moment ago is pushed whole by its own first message anyway.
      const items = await queryAll<Record<string, unknown>>(db, patterns.syncsByWorkspace(workspaceId), { consistent: false });
      return items.map((item) => {
        const {
          PK: _pk,
          SK: _sk,
          type: _type,
          leaseOwner: _owner,
          leaseUntil: _until,
          pushedThrough: _through,
          sealedToken: _token,
          ...record
        } = item;
        return record as unknown as SyncRecord;
      });
    },
  };
}
