import { afterEach, describe, expect, it, vi } from 'vitest';
import { replayToSts } from '../../../shared/access/sts-replay.ts';

/**
 * The replay of a login's signed GetCallerIdentity to STS (shared/access/sts-replay.ts), over a stand-in for fetch
 * (no network): what is sent, and the verdict each kind of answer is (the caller's ARN, STS's refusal by its code,
 * STS unavailable, an answer past 64 KiB or one that cannot be read).
 */

const URL = 'https://sts.us-east-1.amazonaws.com/';
const BODY = 'Action=GetCallerIdentity&Version=2011-06-15';
const ARN = 'arn:aws:sts::123456789012:assumed-role/app-role/i-0abc';

const identity = (arn: string) =>
  `<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>${arn}</Arn><UserId>AROA:i-0abc</UserId><Account>123456789012</Account></GetCallerIdentityResult></GetCallerIdentityResponse>`;
const stsError = (code: string) =>
  `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>m</Message></Error></ErrorResponse>`;

/** fetch answering `status` with `body` (and `headers`), or failing with `error`. */
function stubFetch(answer: { status?: number; body?: string | Uint8Array; headers?: Record<string, string> } | { error: unknown }) {
  const fetch = vi.fn(async (_url: string, _init: RequestInit) => {
    if ('error' in answer) throw answer.error;
    return new Response(answer.body ?? '', { status: answer.status ?? 200, headers: answer.headers });
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('replayToSts', () => {
  it("sends the checked headers and body once, without following a redirect, and answers the caller's ARN", async () => {
    // Prepare
    const fetch = stubFetch({ body: identity(ARN) });
    const headers = {
      host: 'forged.example',
      'content-length': '999',
      authorization: 'AWS4-HMAC-SHA256 …',
      'x-amz-date': '20260101T000000Z',
    };

    // Act
    const verdict = await replayToSts(URL, headers, BODY);

    // Assess
    expect(verdict).toEqual({ ok: true, callerArn: ARN });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe(URL);
    expect(init).toMatchObject({
      method: 'POST',
      body: BODY,
      redirect: 'manual',
      headers: { authorization: 'AWS4-HMAC-SHA256 …', 'x-amz-date': '20260101T000000Z' },
    });
    expect(init.headers).not.toHaveProperty('host');
    expect(init.headers).not.toHaveProperty('content-length');
  });

  it("is sts_refused naming STS's error code (never its message) for a 4xx, or the status when the code is not plain", async () => {
    // Prepare
    stubFetch({ status: 403, body: stsError('SignatureDoesNotMatch') });
    const named = await replayToSts(URL, {}, BODY);
    stubFetch({ status: 403, body: stsError('<script>') });
    const unnamed = await replayToSts(URL, {}, BODY);
    stubFetch({ status: 302, headers: { location: 'https://elsewhere.example/' } });
    const redirected = await replayToSts(URL, {}, BODY);

    // Assess
    expect(named).toEqual({ ok: false, reason: 'sts_refused', message: 'login: STS refused the signed request (SignatureDoesNotMatch)' });
    expect(unnamed).toEqual({ ok: false, reason: 'sts_refused', message: 'login: STS refused the signed request (HTTP 403)' });
    expect(redirected).toMatchObject({ ok: false, reason: 'sts_refused', message: expect.stringContaining('(HTTP 302)') });
  });

  it('is sts_unavailable for a 5xx, a network failure, or no answer in time', async () => {
    // Prepare
    stubFetch({ status: 503, body: 'busy' });
    const busy = await replayToSts(URL, {}, BODY);
    stubFetch({ error: new TypeError('fetch failed') });
    const unreachable = await replayToSts(URL, {}, BODY);
    stubFetch({ error: new DOMException('The operation timed out.', 'TimeoutError') });
    const timedOut = await replayToSts(URL, {}, BODY);

    // Assess
    expect(busy).toEqual({ ok: false, unavailable: true, reason: 'sts_unavailable', message: 'login: STS answered 503; retry shortly' });
    expect(unreachable).toEqual({
      ok: false,
      unavailable: true,
      reason: 'sts_unavailable',
      message: 'login: STS could not be reached; retry shortly',
    });
    expect(timedOut).toMatchObject({ reason: 'sts_unavailable', message: 'login: STS did not answer within 3 seconds; retry shortly' });
  });

  it('reads at most 64 KiB: a longer answer, declared or not, cannot be read (sts_answer)', async () => {
    // Prepare
    const padding = (n: number) => `<!--${'x'.repeat(n)}-->`;
    const answer = identity(ARN);
    const fits = answer + padding(64 * 1024 - answer.length - 7);
    stubFetch({ body: fits });
    const atLimit = await replayToSts(URL, {}, BODY);
    stubFetch({ body: `${fits}x` });
    const onePast = await replayToSts(URL, {}, BODY);
    stubFetch({ body: answer, headers: { 'content-length': String(64 * 1024 + 1) } });
    const declared = await replayToSts(URL, {}, BODY);

    // Assess
    expect(Buffer.byteLength(fits)).toBe(64 * 1024);
    expect(atLimit).toEqual({ ok: true, callerArn: ARN });
    expect([onePast, declared]).toEqual(
      Array(2).fill({ ok: false, unavailable: true, reason: 'sts_answer', message: "login: STS's answer could not be read" }),
    );
  });

  it('is sts_answer for a 200 that is not one GetCallerIdentity result with a well-formed ARN', async () => {
    // Prepare
    const bodies = [
      'not xml',
      identity('arn:aws:s3:::bucket'),
      identity(ARN) + identity(ARN),
      `<GetCallerIdentityResult><Arn>${ARN}</Arn><Arn>${ARN}</Arn></GetCallerIdentityResult>`,
    ];

    // Act
    const verdicts = [];
    for (const body of bodies) {
      stubFetch({ body });
      verdicts.push(await replayToSts(URL, {}, BODY));
    }

    // Assess
    expect(verdicts.map((v) => (v.ok ? 'ok' : v.reason))).toEqual(Array(4).fill('sts_answer'));
  });
});
