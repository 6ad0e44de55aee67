import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { streamTestSender } from '../../../shared/audit-streams/delivery/stream-test-send.ts';
import type { GuardedGetResult, GuardedRequestOptions } from '../../../shared/net/guarded-get.ts';
import { fakeCipher, fakeClock } from '../support/fakes.ts';
import { HEADER_VALUE } from './support.ts';
import { entry, httpsStream, QUERY_TOKEN, SIGNING_SECRET, STREAM_URL, WS } from './worker-support.ts';

/** A test sender over a transport that answers `result` and keeps what it was asked. */
function tester(result: GuardedGetResult | { kind: 'failed'; reason: string }) {
  const asked: { url: string; options: GuardedRequestOptions }[] = [];
  const send = streamTestSender({
    cipher: fakeCipher(),
    allowPrivateCidrs: undefined,
    clock: fakeClock(),
    transport: async (url, options) => {
      asked.push({ url, options });
      return result as GuardedGetResult;
    },
  });
  return { send, asked };
}

describe("an audit stream test's send", () => {
  it("sends the one entry as the stream's batch would be: https JSON lines, signed with the whole secret, its headers", async () => {
    const t = tester({ kind: 'answered', statusCode: 202, body: Buffer.alloc(0) });
    const test = entry(1);

    expect(await t.send(WS, httpsStream(), test)).toEqual({ ok: true, statusCode: 202 });

    const [{ url, options }] = t.asked as [(typeof t.asked)[0]];
    expect(url).toBe(STREAM_URL);
    // One line: the entry as GET /api/v1/audit answers it (no accountId: the API answers none).
    const { accountId: _account, ...answered } = test;
    expect(JSON.parse(String(options.body).trim())).toEqual(answered);
    const headers = options.headers as Record<string, string>;
    expect(headers.Authorization).toBe(HEADER_VALUE);
    const [, t0, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(headers['Service-Signature']!)!;
    expect(v1).toBe(
      createHmac('sha256', SIGNING_SECRET)
        .update(`${t0}.${String(options.body)}`)
        .digest('hex'),
    );
  });

  it("answers a failure's reason without the url's query", async () => {
    const t = tester({ kind: 'failed', reason: `connect ECONNREFUSED for ${STREAM_URL}` });
    const result = await t.send(WS, httpsStream(), entry(1));
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(JSON.stringify(result)).not.toContain(QUERY_TOKEN);
  });
});
