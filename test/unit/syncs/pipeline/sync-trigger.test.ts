import { describe, expect, it } from 'vitest';
import type { Dependent } from '../../../../shared/references/index.ts';
import { makeSyncTrigger, type StreamedAudit } from '../../../../shared/syncs/pipeline/sync-trigger.ts';
import type { SyncMessage } from '../../../../shared/syncs/sync-queue.ts';
import type { SyncRecord } from '../../../../shared/syncs/sync-records.ts';
import { syncRecord } from '../support.ts';

const T = Date.parse('2026-12-07T10:00:00.000Z');

const sync = (id: string, over: Partial<SyncRecord> = {}): SyncRecord => syncRecord({ id, status: 'ok', ...over });

function audit(action: string, key: string, over: Partial<StreamedAudit> = {}, at = T): StreamedAudit {
  return {
    id: `aud_${key}_${at}`,
    workspaceId: 'ws_1',
    action: action as StreamedAudit['action'],
    actorSub: 'key_1',
    target: `sec_${key}`,
    metadata: { key, projectId: 'prj_1', environmentId: 'env_prod' },
    createdAt: new Date(at).toISOString(),
    ...over,
  };
}

function harness(syncs: SyncRecord[], dependents: Record<string, Dependent[]> = {}, failQueue = false) {
  const queued: SyncMessage[] = [];
  const listed: string[] = [];
  const walked: string[] = [];
  const trigger = makeSyncTrigger({
    listSyncs: async (workspaceId) => {
      listed.push(workspaceId);
      return syncs;
    },
    dependentsOf: async (a) => {
      walked.push(a.target);
      return dependents[a.target] ?? [];
    },
    queue: {
      enqueue: async (message) => {
        if (failQueue) throw new Error('SQS down');
        queued.push(message);
      },
    },
  });
  return { trigger, queued, listed, walked };
}

describe('sync trigger (the fan-out side of syncs)', () => {
  it('queues one message per sync of the changed environment, with the changed keys its pattern matches, never a value', async () => {
    const h = harness([sync('sync_all'), sync('sync_db', { keys: 'DB_*' }), sync('sync_other', { environmentId: 'env_dev' })]);
    const failed = await h.trigger([[audit('secret.rotate', 'DB_URL')], [audit('secret.create', 'API_KEY', {}, T + 5)]]);
    expect(failed).toBe(Infinity);
    expect(h.queued).toEqual([
      { workspaceId: 'ws_1', syncId: 'sync_all', keys: ['API_KEY', 'DB_URL'], at: T + 5, attempt: 1 },
      { workspaceId: 'ws_1', syncId: 'sync_db', keys: ['DB_URL'], at: T, attempt: 1 },
    ]);
  });

  it('reads nothing for a batch without value changes, and walks no reference index for a workspace without syncs', async () => {
    const h = harness([]);
    await h.trigger([[audit('secret.reveal', 'A')], [audit('project.create', 'B')]]);
    expect(h.listed).toEqual([]);
    await h.trigger([[audit('secret.rotate', 'A')]]);
    expect([h.listed, h.walked, h.queued]).toEqual([['ws_1'], [], []]);
  });

  it('a paused sync gets nothing; a deleted key is a change too (prune)', async () => {
    const h = harness([sync('sync_paused', { status: 'paused' }), sync('sync_live')]);
    await h.trigger([[audit('secret.delete', 'OLD')]]);
    expect(h.queued.map((m) => [m.syncId, m.keys])).toEqual([['sync_live', ['OLD']]]);
  });

  it('a change reaches the syncs of the secrets that reference it, in their environments', async () => {
    const dependent: Dependent = {
      id: 'sec_URL',
      key: 'DATABASE_URL',
      projectId: 'prj_1',
      environmentId: 'env_dev',
      currentVersion: 3,
      path: 'app/dev/DATABASE_URL',
    };
    const h = harness([sync('sync_dev', { environmentId: 'env_dev' })], { sec_DB_PASSWORD: [dependent] });
    await h.trigger([[audit('secret.rotate', 'DB_PASSWORD')]]);
    expect(h.queued.map((m) => [m.syncId, m.keys])).toEqual([['sync_dev', ['DATABASE_URL']]]);
  });

  it('answers the first record of a workspace whose messages could not be queued, so the stream retries from it', async () => {
    const h = harness([sync('sync_all')], {}, true);
    const failed = await h.trigger([[audit('secret.reveal', 'X')], [audit('secret.rotate', 'A')], [audit('secret.rotate', 'B')]]);
    expect(failed).toBe(1);
  });
});
