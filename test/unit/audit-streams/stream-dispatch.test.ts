import { describe, expect, it } from 'vitest';
import type { StreamedAuditEntry } from '../../../shared/audit/index.ts';
import type { AuditStreamRecord } from '../../../shared/audit-streams/index.ts';
import { makeStreamDispatch, makeStreamRouting, ROUTING_TTL_MS } from '../../../shared/audit-streams/delivery/stream-dispatch.ts';
import type { StreamMessage } from '../../../shared/audit-streams/delivery/stream-queue.ts';

const entry = (n: number, workspaceId = 'ws_1'): StreamedAuditEntry => ({
  id: `aud_${String(n).padStart(26, '0')}`,
  action: 'secret.reveal',
  actorSub: 'ak_1',
  target: `sec_${n}`,
  metadata: {},
  createdAt: '2026-12-07T10:00:00.000Z',
  workspaceId,
});

const stream = (id: string, status: 'active' | 'disabled' = 'active') => ({ id, status }) as AuditStreamRecord;

describe('the routing of audit entries to streams', () => {
  it("reads a workspace's active streams once per half-minute, again after; a failed read is not kept", async () => {
    // Prepare
    let now = 0;
    const reads: string[] = [];
    let fail = false;
    const routing = makeStreamRouting(
      {
        listAuditStreamsOfWorkspace: async (workspaceId) => {
          reads.push(workspaceId);
          if (fail) throw new Error('throttled');
          return [stream('as_1'), stream('as_2', 'disabled')];
        },
      },
      { now: () => now },
    );
    // Act
    const first = await routing('ws_1');
    await routing('ws_1');
    now = ROUTING_TTL_MS - 1;
    await routing('ws_1');
    now = ROUTING_TTL_MS;
    fail = true;
    const failed = await routing('ws_1').catch((error: Error) => error.message);
    fail = false;
    const after = await routing('ws_1');
    // Assess
    expect(first).toEqual(['as_1']);
    expect(failed).toBe('throttled');
    expect(after).toEqual(['as_1']);
    expect(reads).toEqual(['ws_1', 'ws_1', 'ws_1']);
  });

  it('reads again, consistently, when asked for fresh streams within the half-minute, and keeps what it read', async () => {
    // Prepare: a workspace read without streams
    const reads: { workspaceId: string; consistent: boolean | undefined }[] = [];
    let streams: AuditStreamRecord[] = [];
    const routing = makeStreamRouting(
      {
        listAuditStreamsOfWorkspace: async (workspaceId, consistent) => {
          reads.push({ workspaceId, consistent });
          return streams;
        },
      },
      { now: () => 0 },
    );
    expect(await routing('ws_1')).toEqual([]);
    // Act: a stream made meanwhile
    streams = [stream('as_new')];
    const cached = await routing('ws_1');
    const fresh = await routing('ws_1', true);
    const after = await routing('ws_1');
    // Assess
    expect([cached, fresh, after]).toEqual([[], ['as_new'], ['as_new']]);
    expect(reads).toEqual([
      { workspaceId: 'ws_1', consistent: false },
      { workspaceId: 'ws_1', consistent: true },
    ]);
  });
});

describe('the dispatch of a stream batch', () => {
  function dispatchWith(streams: Record<string, string[] | Error>, refuse = false) {
    const queued: StreamMessage[] = [];
    const warned: unknown[] = [];
    const freshReads: string[] = [];
    const dispatch = makeStreamDispatch({
      streamsOf: async (workspaceId, fresh) => {
        if (fresh) freshReads.push(workspaceId);
        const found = streams[workspaceId] ?? [];
        if (found instanceof Error) throw found;
        return found;
      },
      queue: {
        enqueueAll: async (messages) => {
          queued.push(...messages);
          return refuse ? [0] : [];
        },
      },
      warn: (_message, context) => warned.push(context),
    });
    return { dispatch, queued, warned, freshReads };
  }

  it('queues every entry for each active stream of its workspace, nothing for a workspace without streams', async () => {
    // Prepare
    const { dispatch, queued } = dispatchWith({ ws_1: ['as_1', 'as_2'], ws_2: [] });
    // Act
    const failedAt = await dispatch([[entry(1)], [], [entry(2), entry(3, 'ws_2')]]);
    // Assess
    expect(failedAt).toBe(Number.POSITIVE_INFINITY);
    expect(queued.map((m) => [m.streamId, m.entries.map((e) => e.target), m.attempt])).toEqual([
      ['as_1', ['sec_1', 'sec_2'], 1],
      ['as_2', ['sec_1', 'sec_2'], 1],
    ]);
  });

  it("asks for a workspace's streams fresh when its entries hold an audit stream's create, change or delete", async () => {
    // Prepare
    const { dispatch, queued, freshReads } = dispatchWith({ ws_1: ['as_1'], ws_2: ['as_2'] });
    const made: StreamedAuditEntry = { ...entry(1), action: 'audit_stream.create' };
    // Act
    await dispatch([[made, entry(2)], [entry(3, 'ws_2')]]);
    // Assess: ws_1 read fresh (its stream's own entry delivered with it), ws_2 from the cache
    expect(freshReads).toEqual(['ws_1']);
    expect(queued.find((m) => m.streamId === 'as_1')?.entries.map((e) => e.action)).toEqual(['audit_stream.create', entry(2).action]);
  });

  it('answers the first record of a workspace whose entries SQS refused or whose streams could not be read, and says which', async () => {
    // Prepare
    const refused = dispatchWith({ ws_1: ['as_1'] }, true);
    const unread = dispatchWith({ ws_2: new Error('throttled') });
    // Act
    const refusedAt = await refused.dispatch([[], [entry(1)], [entry(2)]]);
    const unreadAt = await unread.dispatch([[entry(1)], [], [entry(2, 'ws_2')]]);
    // Assess
    expect(refusedAt).toBe(1);
    expect(unreadAt).toBe(2);
    expect(unread.warned).toEqual([{ workspaceId: 'ws_2', errorName: 'Error' }]);
  });
});
