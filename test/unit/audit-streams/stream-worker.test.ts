import { describe, expect, it } from 'vitest';
import { MAX_BATCH_ENTRIES } from '../../../shared/audit-streams/delivery/stream-batches.ts';
import { DISABLE_AFTER_MS } from '../../../shared/audit-streams/delivery/stream-health.ts';
import { STREAM_TIMEOUT_MS } from '../../../shared/audit-streams/delivery/stream-sender.ts';
import { HEADER_VALUE } from './support.ts';
import { entries, fresh, httpsStream, QUERY_TOKEN, SIGNING_SECRET, sqsEvent, T, worker, WS } from './worker-support.ts';

const MINUTE = 60_000;
const ids = (list: readonly { id: string }[]) => list.map((e) => e.id);

describe('audit stream worker: delivery', () => {
  it('merges a burst of messages into full batches of 500, each sent once through the guard, and records the success', async () => {
    // Prepare
    const t = worker();
    const burst = entries(0, 1200);
    const messages = fresh(burst);

    // Act
    const answer = await t.handler(sqsEvent(messages));

    // Assess
    expect(messages.length).toBeGreaterThan(1);
    expect(t.sent.map((s) => s.ids.length)).toEqual([MAX_BATCH_ENTRIES, MAX_BATCH_ENTRIES, 200]);
    expect(t.sent.flatMap((s) => s.ids)).toEqual(ids(burst));
    expect(t.sent[0]!.options).toMatchObject({ method: 'POST', timeoutMs: STREAM_TIMEOUT_MS });
    expect(t.sent[0]!.options.headers).toMatchObject({ Authorization: HEADER_VALUE, 'Content-Type': 'application/x-ndjson' });
    expect(t.queued).toEqual([]);
    expect(t.changes).toEqual([{ kind: 'delivered', at: new Date(T).toISOString() }]);
    expect(answer).toEqual({ batchItemFailures: [] });
  });

  it('sends each entry id once when messages repeat entries (SQS redelivery, a fan-out retry)', async () => {
    const t = worker();
    const first = fresh(entries(0, 3));
    const overlap = fresh(entries(2, 3));

    await t.handler(sqsEvent([...first, ...first, ...overlap]));

    expect(t.sent.map((s) => s.ids)).toEqual([ids(entries(0, 5))]);
  });

  it('a 500 queues exactly the failed batch again as attempt 2, due in 1 minute, and starts failingSince', async () => {
    // Prepare
    const t = worker();
    const burst = entries(0, 1200);
    t.script.answer = (n) => ({ kind: 'answered', statusCode: n === 2 ? 500 : 202, body: Buffer.alloc(0) });

    // Act
    const answer = await t.handler(sqsEvent(fresh(burst)));

    // Assess
    const retried = t.queued.flatMap((q) => q.messages);
    expect(ids(retried.flatMap((m) => m.entries))).toEqual(ids(burst.slice(500, 1000)));
    expect(retried.every((m) => m.attempt === 2 && m.notBefore === T + MINUTE && m.streamId === 'as_1')).toBe(true);
    expect(t.queued.map((q) => q.delay)).toEqual(t.queued.map(() => 60));
    expect(t.streams.get('as_1')).toMatchObject({
      status: 'active',
      failingSince: new Date(T).toISOString(),
      lastError: { statusCode: 500, reason: 'the receiver answered 500' },
    });
    expect(answer).toEqual({ batchItemFailures: [] });
  });

  it('retries each entry on its own attempt: a third attempt waits 25 minutes (SQS delays 15, the rest is notBefore)', async () => {
    const t = worker({ timeScale: 1 });
    t.script.answer = () => ({ kind: 'failed', reason: 'connection refused' });
    const retry = { ...fresh(entries(0, 2))[0]!, attempt: 3 };

    await t.handler(sqsEvent([retry, ...fresh(entries(10, 1))]));

    const byAttempt = Object.fromEntries(t.queued.map((q) => [q.messages[0]!.attempt, { ids: ids(q.messages[0]!.entries), q }]));
    expect(byAttempt[4]).toMatchObject({ ids: ids(entries(0, 2)), q: { delay: 900, messages: [{ notBefore: T + 25 * MINUTE }] } });
    expect(byAttempt[2]).toMatchObject({ ids: ids(entries(10, 1)), q: { delay: 60, messages: [{ notBefore: T + MINUTE }] } });
  });

  it('scales the schedule by WEBHOOK_TIME_SCALE', async () => {
    const t = worker({ timeScale: 0.001 });
    t.script.answer = () => ({ kind: 'answered', statusCode: 503, body: Buffer.alloc(0) });

    await t.handler(sqsEvent(fresh(entries(0, 1))));

    expect(t.queued[0]!.messages[0]!.notBefore).toBe(T + 60);
  });

  it('never schedules a retry past the 3-day window, so the attempt that disables the stream falls on time', async () => {
    const failingSince = new Date(T - DISABLE_AFTER_MS + 30_000).toISOString();
    const t = worker({ streams: [httpsStream({ failingSince })] });
    t.script.answer = () => ({ kind: 'failed', reason: 'connection refused' });

    await t.handler(sqsEvent([{ ...fresh(entries(0, 1))[0]!, attempt: 5 }]));

    expect(t.queued[0]!.messages[0]).toMatchObject({ attempt: 6, notBefore: T + 30_000 });
  });
});

describe('audit stream worker: messages not yet due', () => {
  it('queues a message due later again, delayed for what is left (at most 15 minutes), and sends nothing', async () => {
    const t = worker();
    const later = { ...fresh(entries(0, 1))[0]!, attempt: 4, notBefore: T + 2 * 3_600_000 };
    const soon = { ...fresh(entries(5, 1))[0]!, attempt: 2, notBefore: T + 100_000 };

    const answer = await t.handler(sqsEvent([later, soon]));

    expect(t.sent).toEqual([]);
    expect(t.queued).toEqual([
      { messages: [later], delay: 900 },
      { messages: [soon], delay: 100 },
    ]);
    expect(answer).toEqual({ batchItemFailures: [] });
  });

  it('delivers a message whose notBefore has passed', async () => {
    const t = worker();

    await t.handler(sqsEvent([{ ...fresh(entries(0, 1))[0]!, attempt: 2, notBefore: T - 1 }]));

    expect(t.sent.map((s) => s.ids)).toEqual([ids(entries(0, 1))]);
    expect(t.queued).toEqual([]);
  });
});

describe('audit stream worker: streams that take nothing, records that fail', () => {
  it.each([
    ['disabled', [httpsStream({ status: 'disabled' })]],
    ['deleted', []],
  ])('drops the messages of a %s stream, logged, without failing them', async (why, streams) => {
    const t = worker({ streams });

    const answer = await t.handler(sqsEvent(fresh(entries(0, 3))));

    expect(t.sent).toEqual([]);
    expect(t.queued).toEqual([]);
    expect(t.lines).toContainEqual(
      expect.objectContaining({ message: 'audit stream entries dropped', attributes: expect.objectContaining({ why }) }),
    );
    expect(answer).toEqual({ batchItemFailures: [] });
  });

  it('reports the records of a failed batch it could not queue again, and those of a hop', async () => {
    const t = worker({ refuseQueue: true });
    t.script.answer = () => ({ kind: 'answered', statusCode: 500, body: Buffer.alloc(0) });
    const hop = { ...fresh(entries(9, 1))[0]!, notBefore: T + MINUTE };

    const answer = await t.handler(sqsEvent([...fresh(entries(0, 1)), hop]));

    expect(answer.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m0', 'm1']);
  });

  it('reports the records of a stream it could not read; drops a body it cannot parse', async () => {
    const t = worker();
    t.fail.read = true;

    const answer = await t.handler(sqsEvent([...fresh(entries(0, 1)), '{"not":"a stream message"}']));

    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
    expect(t.lines.map((l) => l.message)).toEqual(['audit stream message not understood', 'audit stream delivery could not run']);
  });

  it('delivers to each stream of the batch with its own credentials', async () => {
    const t = worker({ streams: [httpsStream(), httpsStream({ id: 'as_2' })] });

    await t.handler(sqsEvent([...fresh(entries(0, 1)), ...fresh(entries(1, 1), 'as_2')]));

    expect(t.sent.map((s) => s.ids)).toEqual([ids(entries(0, 1)), ids(entries(1, 1))]);
    expect(t.changes).toHaveLength(2);
  });
});

describe('audit stream worker: what it writes and logs', () => {
  it('never logs nor keeps in lastError a credential, a header value or the url query', async () => {
    // Prepare: a reason that quotes the url (as a future error message might), and a body that is no message
    const t = worker();
    t.script.answer = () => ({ kind: 'failed', reason: `TLS: bad certificate for https://siem.example/ingest?k=${QUERY_TOKEN}` });
    const junk = JSON.stringify({ workspaceId: WS, token: HEADER_VALUE });

    // Act
    await t.handler(sqsEvent([...fresh(entries(0, 2)), junk]));
    t.script.answer = () => ({ kind: 'answered', statusCode: 200, body: Buffer.alloc(0) });
    t.streams.get('as_1')!.status = 'disabled';
    await t.handler(sqsEvent(fresh(entries(3, 1))));

    // Assess
    const written = JSON.stringify([t.lines, t.streams.get('as_1')!.lastError, t.changes]);
    for (const secret of [QUERY_TOKEN, HEADER_VALUE, SIGNING_SECRET, 'k=']) expect(written).not.toContain(secret);
    expect(t.streams.get('as_1')!.lastError!.reason).toBe('TLS: bad certificate for https://siem.example/ingest?…');
    expect(t.lines.length).toBeGreaterThanOrEqual(3);
  });
});

describe('audit stream worker: health', () => {
  const failing = () => ({ kind: 'answered', statusCode: 500, body: Buffer.alloc(0) }) as const;

  it('disables a stream failing past the scaled 3 days once, with its system audit entry, and drops what comes after', async () => {
    // Prepare: failing for the whole window at WEBHOOK_TIME_SCALE 0.001 (259.2 s)
    const failingSince = new Date(T - DISABLE_AFTER_MS * 0.001).toISOString();
    const t = worker({ streams: [httpsStream({ failingSince })], timeScale: 0.001 });
    t.script.answer = failing;

    // Act
    await t.handler(sqsEvent(fresh(entries(0, 1))));
    t.clock.advance(MINUTE);
    await t.handler(sqsEvent(fresh(entries(1, 1))));

    // Assess
    expect(t.streams.get('as_1')).toMatchObject({ status: 'disabled', failingSince, revision: 2 });
    expect(t.audits).toHaveLength(1);
    expect(t.audits[0]).toMatchObject({
      action: 'audit_stream.update',
      actorSub: 'system',
      target: 'as_1',
      accountId: 'acc_1',
      metadata: { status: 'disabled', reason: 'failing' },
    });
    expect(t.sent).toHaveLength(1);
  });

  it('does not disable a stream failing for less than the scaled window', async () => {
    const failingSince = new Date(T - DISABLE_AFTER_MS * 0.001 + 1000).toISOString();
    const t = worker({ streams: [httpsStream({ failingSince })], timeScale: 0.001 });
    t.script.answer = failing;

    await t.handler(sqsEvent(fresh(entries(0, 1))));

    expect(t.streams.get('as_1')!.status).toBe('active');
    expect(t.audits).toEqual([]);
  });

  it('a success clears failingSince and lastError and sets lastDeliveredAt', async () => {
    const lastError = { statusCode: 500, reason: 'the receiver answered 500', at: '2026-12-07T09:00:00.000Z' };
    // Delivered 10 s ago too (another batch went through): the once-a-minute rule must not hold back the recovery.
    const lastDeliveredAt = new Date(T - 10_000).toISOString();
    const t = worker({ streams: [httpsStream({ failingSince: '2026-12-06T10:00:00.000Z', lastError, lastDeliveredAt })] });

    await t.handler(sqsEvent(fresh(entries(0, 1))));

    const stream = t.streams.get('as_1')!;
    expect(stream).not.toHaveProperty('failingSince');
    expect(stream).not.toHaveProperty('lastError');
    expect(stream.lastDeliveredAt).toBe(new Date(T).toISOString());
  });

  it('writes a healthy stream at most once a minute, and the same failure again at most once a minute', async () => {
    const t = worker();
    await t.handler(sqsEvent(fresh(entries(0, 1))));
    t.clock.advance(59_000);
    await t.handler(sqsEvent(fresh(entries(1, 1))));
    t.clock.advance(1_000);
    await t.handler(sqsEvent(fresh(entries(2, 1))));
    t.script.answer = failing;
    await t.handler(sqsEvent(fresh(entries(3, 1))));
    t.clock.advance(59_000);
    await t.handler(sqsEvent(fresh(entries(4, 1))));
    t.script.answer = () => ({ kind: 'answered', statusCode: 503, body: Buffer.alloc(0) });
    await t.handler(sqsEvent(fresh(entries(5, 1))));

    expect(t.sent).toHaveLength(6);
    expect(t.changes.map((c) => c.kind)).toEqual(['delivered', 'delivered', 'failed', 'failed']);
    expect(t.streams.get('as_1')!.lastError!.statusCode).toBe(503);
  });
});
