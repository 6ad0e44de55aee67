import { callerArnOf } from './iam-login.ts';

/**
 * Sends a login's signed GetCallerIdentity to STS, as the service itself: the url is the configured endpoint (checked
 * before this by `checkSignedRequest`), the headers are the allow-listed ones the workload signed, no redirect is
 * followed, and STS has 3 seconds. Plain HTTPS: a replay needs no AWS SDK client (STS checks the signature, and the
 * service holds no AWS credentials of the workload).
 */

/** How long STS has to answer a replayed login. */
export const STS_TIMEOUT_MS = 3_000;

/** STS's answers are a few hundred bytes; anything past this is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;

export type StsVerdict = { ok: true; callerArn: string } | { ok: false; unavailable?: true; reason: string; message: string };

/** The error code of STS's error XML (`<Code>SignatureDoesNotMatch</Code>`), when it is one of plain letters. */
function stsErrorCode(xml: string): string | undefined {
  const code = /<Code>([A-Za-z.]{1,64})<\/Code>/.exec(xml)?.[1];
  return code;
}

/** Reads at most MAX_ANSWER_BYTES of the answer; undefined past that. */
async function boundedText(response: Response): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_ANSWER_BYTES) return undefined;
  const bytes = new Uint8Array(await response.arrayBuffer());
  return bytes.byteLength > MAX_ANSWER_BYTES ? undefined : new TextDecoder().decode(bytes);
}

/**
 * Replays the checked request. `headers` are the checked ones, names lower-cased; `host` and `content-length` are
 * what fetch derives from the url and the body (the checked url and the one allowed body), so a signature over
 * other values fails at STS.
 */
export async function replayToSts(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs = STS_TIMEOUT_MS,
): Promise<StsVerdict> {
  const { host: _host, 'content-length': _length, ...sent } = headers;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: sent, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    return {
      ok: false,
      unavailable: true,
      reason: 'sts_unavailable',
      message: timedOut ? 'login: STS did not answer within 3 seconds; retry shortly' : 'login: STS could not be reached; retry shortly',
    };
  }
  const text = await boundedText(response).catch(() => undefined);
  if (response.status >= 500) {
    return { ok: false, unavailable: true, reason: 'sts_unavailable', message: `login: STS answered ${response.status}; retry shortly` };
  }
  if (response.status !== 200) {
    // STS's code (SignatureDoesNotMatch, InvalidClientTokenId, ExpiredToken…) names what failed; its message is not repeated.
    const code = text === undefined ? undefined : stsErrorCode(text);
    return { ok: false, reason: 'sts_refused', message: `login: STS refused the signed request (${code ?? `HTTP ${response.status}`})` };
  }
  const callerArn = text === undefined ? undefined : callerArnOf(text);
  if (!callerArn) return { ok: false, unavailable: true, reason: 'sts_answer', message: "login: STS's answer could not be read" };
  return { ok: true, callerArn };
}
