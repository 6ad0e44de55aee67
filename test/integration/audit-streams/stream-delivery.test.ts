import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpsReceiver, ReceivedRequest } from '../../support/https-receiver.ts';
import { call, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { startReceiver, waitFor } from '../../support/webhooks.ts';

/**
 * Audit streams' delivery over the local stack (decisions.md v1.4, "Audit streams and tamper evidence"): the table's
 * stream feeds the fan-out, which queues each new entry for the workspace's streams; the worker sends them in
 * signed JSON-lines batches, retries on the webhook schedule (WEBHOOK_TIME_SCALE shrinks it and the 3-day window to
 * about 26 s here) and disables a stream that keeps failing. Each test has its own workspace and receiver.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
type Line = { id: string; action: string; target: string; actorSub: string; metadata: Record<string, unknown>; createdAt: string };
const receivers: HttpsReceiver[] = [];

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
});

/** A receiver answering `status`, and an https stream of a fresh workspace pointed at it. */
async function streamed(status = 200) {
  const receiver = await startReceiver({ status });
  receivers.push(receiver);
  const ws = await newWorkspace();
  const made = await call('POST', '/api/v1/audit-streams', { token: ws.apiKey, body: { type: 'https', url: `${receiver.origin}/siem` } });
  expect(made.status).toBe(201);
  const { id, secret } = made.body.data as { id: string; secret: string };
  return { receiver, ws, streamId: id, secret };
}

/** Every line of the requests the receiver answered 2xx, each request's signature checked with the stream's secret. */
function delivered(requests: readonly ReceivedRequest[], secret: string, ok: (request: ReceivedRequest) => boolean = () => true) {
  return requests.filter(ok).flatMap((request) => {
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['service-signature']))!;
    expect(createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex')).toBe(v1);
    expect(request.headers['content-type']).toBe('application/x-ndjson');
    return request.body
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
  });
}

/** Writes `count` secrets into a new environment of `ws`, `parallel` at a time: one `secret.create` entry each. */
async function writeSecrets(ws: Ws, count: number, parallel = 10): Promise<string[]> {
  const { environment } = await newEnvironment(ws.apiKey);
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let n = next++; n < count; n = next++) {
        const put = await call('PUT', `/api/v1/environments/${environment.id}/secrets`, {
          token: ws.apiKey,
          body: { key: `KEY_${n}`, value: `sample-${n}` },
        });
        expect(put.status).toBe(200);
        ids.push((put.body.data as { id: string }).id);
      }
    }),
  );
  return ids;
}

let other: Ws;
beforeAll(async () => {
  other = await newWorkspace();
});

describe('audit stream delivery (local stack)', () => {
  it('delivers every entry of a burst of 600 audited actions, each id once after dedup, signed, none of another workspace', {
    timeout: 180_000,
  }, async () => {
    // Prepare
    const { receiver, ws, streamId, secret } = await streamed();
    // Act: 600 writes (more than one 500-entry batch), while another workspace writes too
    const [ids] = await Promise.all([writeSecrets(ws, 600), writeSecrets(other, 20, 2)]);
    // Assess: every write's entry arrives (within a minute), after the stream's own creation entry
    const lines = await waitFor(
      async () => {
        const all = delivered(receiver.requests, secret);
        const created = new Set(all.filter((line) => line.action === 'secret.create').map((line) => line.target));
        return ids.every((id) => created.has(id)) && all;
      },
      60_000,
      'the burst at the receiver',
    );
    const unique = new Map(lines.map((line) => [line.id, line]));
    const creates = [...unique.values()].filter((line) => line.action === 'secret.create');
    expect(creates).toHaveLength(600);
    expect(new Set(creates.map((line) => line.target))).toEqual(new Set(ids));
    expect([...unique.values()].some((line) => line.action === 'audit_stream.create' && line.target === streamId)).toBe(true);
    // Nothing of the other workspace: its entries name its own secrets
    const listed = await call('GET', '/api/v1/audit?action=secret.create&limit=100', { token: other.apiKey });
    const theirs = new Set((listed.body.data as Line[]).map((entry) => entry.id));
    expect(theirs.size).toBeGreaterThan(0);
    expect(lines.filter((line) => theirs.has(line.id))).toEqual([]);
    // Batches of at most 500 entries
    for (const request of receiver.requests) expect(request.body.split('\n').filter(Boolean).length).toBeLessThanOrEqual(500);
    const answer = await call('GET', `/api/v1/audit-streams/${streamId}`, { token: ws.apiKey });
    expect(answer.body.data).toMatchObject({ status: 'active', failingSince: null, lastError: null, lastDeliveredAt: expect.any(String) });
  });

  it('gives a receiver that was down every entry once it is back, and records the failure window meanwhile', {
    timeout: 120_000,
  }, async () => {
    // Prepare: a receiver answering 503
    const { receiver, ws, streamId, secret } = await streamed(503);
    // Act: 20 writes while it is down
    const ids = await writeSecrets(ws, 20, 4);
    await waitFor(async () => receiver.requests.length >= 2, 30_000, 'two refused attempts');
    const failing = (await call('GET', `/api/v1/audit-streams/${streamId}`, { token: ws.apiKey })).body.data;
    // Requests from here on are answered 200 (the receiver answers each as it is at its arrival).
    const down = receiver.requests.length;
    receiver.respond({ status: 200 });
    // Assess: every entry arrives on a retry; the stream healthy again
    await waitFor(
      async () => {
        const targets = new Set(delivered(receiver.requests.slice(down), secret).map((line) => line.target));
        return ids.every((id) => targets.has(id));
      },
      60_000,
      'the entries after the receiver came back',
    );
    expect(failing).toMatchObject({ status: 'active', failingSince: expect.any(String), lastError: { statusCode: 503 } });
    const healthy = await waitFor(async () => {
      const stream = (await call('GET', `/api/v1/audit-streams/${streamId}`, { token: ws.apiKey })).body.data;
      return stream.failingSince === null && stream;
    });
    expect(healthy).toMatchObject({ status: 'active', lastError: null });
  });

  it('disables a stream still failing at the end of its window (3 days, scaled), with its system audit entry', {
    timeout: 120_000,
  }, async () => {
    // Prepare: a receiver that always answers 500
    const { receiver, ws, streamId } = await streamed(500);
    // Act
    await writeSecrets(ws, 1, 1);
    // Assess: disabled after about 26 s of failures, audited by the system
    const disabled = await waitFor(
      async () => {
        const stream = (await call('GET', `/api/v1/audit-streams/${streamId}`, { token: ws.apiKey })).body.data;
        return stream.status === 'disabled' && stream;
      },
      90_000,
      'the stream disabled',
    );
    expect(disabled).toMatchObject({ lastError: { statusCode: 500 } });
    const audit = (await call('GET', `/api/v1/audit?action=audit_stream.update&target=${streamId}`, { token: ws.apiKey })).body.data;
    expect(audit).toEqual([
      expect.objectContaining({ actorSub: expect.stringMatching(/^system/), metadata: expect.objectContaining({ status: 'disabled' }) }),
    ]);
    expect(receiver.requests.length).toBeGreaterThan(3);
  });

  it('sends one test entry at once: delivered with the status, or not with the reason; the entry is audited', async () => {
    // Prepare
    const { receiver, ws, streamId, secret } = await streamed(204);
    // Act
    const tested = await call('POST', `/api/v1/audit-streams/${streamId}/test`, { token: ws.apiKey });
    const receivedByThen = receiver.requests.length;
    receiver.respond({ status: 401 });
    const refused = await call('POST', `/api/v1/audit-streams/${streamId}/test`, { token: ws.apiKey });
    // Assess
    expect(tested.status).toBe(200);
    expect(tested.body.data).toEqual({ delivered: true, statusCode: 204, error: null });
    expect(refused.body.data).toEqual({ delivered: false, statusCode: 401, error: 'the receiver answered 401' });
    // Sent before the route answered. The stream's own creation entry may have come through the queue before it.
    const tests = delivered(receiver.requests.slice(0, receivedByThen), secret).filter((line) => line.action === 'audit_stream.test');
    const [first] = tests;
    expect(first).toMatchObject({ action: 'audit_stream.test', target: streamId });
    expect(new Set(tests.map((line) => line.id))).toEqual(new Set([first!.id]));
    const audit = (await call('GET', `/api/v1/audit?action=audit_stream.test&target=${streamId}`, { token: ws.apiKey })).body.data;
    expect(audit.map((entry: Line) => entry.id)).toContain(first!.id);
  });
});
