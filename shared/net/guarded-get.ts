import { describeNetworkError, pinTarget, readUpTo, requestPinned } from './pinned-request.ts';
import type { AllowedCidrs, LookupAll } from './ssrf.ts';

/** What a guarded GET needs: the SSRF guard's exemptions, a deadline and a cap on the answer. */
export interface GuardedGetOptions {
  allow: AllowedCidrs;
  lookup?: LookupAll | undefined;
  /** Deadline for the whole exchange, DNS to the last body byte. */
  timeoutMs: number;
  /** An answer larger than this is a failure, not a truncated document. */
  maxBytes: number;
  userAgent?: string;
}

/**
 * `refused`: the SSRF guard said no (not https, credentials in the url, a blocked address): a property of the url,
 * which a retry will not change. `failed`: nothing usable came back (DNS, connection, TLS, time-out, too large).
 * `answered`: a status, and the body when it is 2xx (any other answer is dropped unread).
 */
export type GuardedGetResult =
  | { kind: 'answered'; statusCode: number; body: Buffer }
  | { kind: 'refused'; reason: string }
  | { kind: 'failed'; reason: string };

const DEFAULT_USER_AGENT = 'secrets-service/1.0';

/**
 * GETs a public https document with the pinned request the webhook sender POSTs with (pinned-request.ts). Redirects
 * are not followed. Never throws; the reasons name codes and statuses, never a header or body.
 */
export async function guardedGet(raw: string, options: GuardedGetOptions): Promise<GuardedGetResult> {
  const url = URL.parse(raw);
  if (url === null || url.protocol !== 'https:') return { kind: 'refused', reason: 'must be an https URL' };
  if (url.username !== '' || url.password !== '') return { kind: 'refused', reason: 'must not contain a username or password' };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    return await fetchPinned(url, options, controller.signal);
  } catch (error) {
    return {
      kind: 'failed',
      reason: controller.signal.aborted ? `timed out after ${options.timeoutMs / 1000} s` : describeNetworkError(error),
    };
  } finally {
    clearTimeout(timer);
  }
}

async function fetchPinned(url: URL, options: GuardedGetOptions, signal: AbortSignal): Promise<GuardedGetResult> {
  const target = await pinTarget(url, options.allow, options.lookup, signal);
  if (target.kind === 'unresolved') return { kind: 'failed', reason: target.reason };
  if (target.kind === 'blocked') return { kind: 'refused', reason: target.reason };
  const headers = { Accept: 'application/json', 'User-Agent': options.userAgent ?? DEFAULT_USER_AGENT };
  const response = await requestPinned(url, target.address, { method: 'GET', headers, signal });
  const statusCode = response.statusCode ?? 0;
  if (statusCode < 200 || statusCode >= 300) {
    response.destroy();
    return { kind: 'answered', statusCode, body: Buffer.alloc(0) };
  }
  // An answer larger than the cap is a failure, not a truncated document: a declared length is refused unread.
  const tooLarge = { kind: 'failed', reason: `answer larger than ${options.maxBytes} bytes` } as const;
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    response.destroy();
    return tooLarge;
  }
  const { body, whole } = await readUpTo(response, options.maxBytes);
  return whole ? { kind: 'answered', statusCode, body } : tooLarge;
}
