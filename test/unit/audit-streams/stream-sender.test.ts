import { describe, expect, it } from 'vitest';
import { guardedStreamSender, STREAM_TIMEOUT_MS } from '../../../shared/audit-streams/delivery/stream-sender.ts';
import type { GuardedGetResult, GuardedRequestOptions } from '../../../shared/net/guarded-get.ts';

const request = { url: 'https://siem.example/in?k=q', headers: { 'Content-Type': 'application/x-ndjson' }, body: '{}\n' };

/** A sender over a transport that answers `result` and keeps what it was asked. */
function sender(result: GuardedGetResult, cidrs?: string) {
  const asked: { url: string; options: GuardedRequestOptions }[] = [];
  const send = guardedStreamSender(cidrs, async (url, options) => {
    asked.push({ url, options });
    return result;
  });
  return { send, asked };
}

const answered = (statusCode: number): GuardedGetResult => ({ kind: 'answered', statusCode, body: Buffer.alloc(0) });

describe('audit stream sender', () => {
  it('POSTs the request through the guard with the 10-second deadline and the open ranges of the config', async () => {
    const t = sender(answered(200), '10.0.0.0/8');

    await t.send(request);

    expect(t.asked[0]!.url).toBe(request.url);
    expect(t.asked[0]!.options).toMatchObject({
      method: 'POST',
      body: request.body,
      headers: request.headers,
      timeoutMs: STREAM_TIMEOUT_MS,
    });
    expect(STREAM_TIMEOUT_MS).toBe(10_000);
    expect(t.asked[0]!.options.allow).toHaveLength(1);
  });

  it.each([200, 202, 204, 299])('%i delivers', async (status) => {
    expect(await sender(answered(status)).send(request)).toEqual({ ok: true, statusCode: status });
  });

  it.each([199, 301, 400, 413, 500, 503])('%i fails with its status', async (status) => {
    expect(await sender(answered(status)).send(request)).toEqual({
      ok: false,
      statusCode: status,
      reason: `the receiver answered ${status}`,
    });
  });

  it('a refusal of the guard and a network failure fail without a status, naming the reason', async () => {
    const refused = await sender({ kind: 'refused', reason: 'blocked: h resolves to 10.0.0.1 (private)' }).send(request);
    const failed = await sender({ kind: 'failed', reason: 'timed out after 10 s' }).send(request);

    expect(refused).toEqual({
      ok: false,
      statusCode: null,
      reason: 'refused by the SSRF guard: blocked: h resolves to 10.0.0.1 (private)',
    });
    expect(failed).toEqual({ ok: false, statusCode: null, reason: 'timed out after 10 s' });
  });
});
