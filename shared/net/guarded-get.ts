import type { OutgoingHttpHeaders } from 'node:http';
import { describeNetworkError, pinTarget, readUpTo, requestPinned } from './pinned-request.ts';
import type { PinnedRequest } from './pinned-request.ts';
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

/** A guarded request of another method (a sync's GitHub calls): its headers join the defaults, its body is sent. */
export interface GuardedRequestOptions extends GuardedGetOptions {
  method: PinnedRequest['method'];
  headers?: OutgoingHttpHeaders;
  body?: string;
}

/**
 * `refused`: the SSRF guard said no (not https, credentials in the url, a blocked address): a property of the url,
 * which a retry will not change. `failed`: nothing usable came back (DNS, connection, TLS, time-out, too large).
 * `answered`: a status, and the body (a GET's only when it is 2xx: any other answer is dropped unread).
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
export function guardedGet(raw: string, options: GuardedGetOptions): Promise<GuardedGetResult> {
  return exchange(raw, { ...options, method: 'GET' }, false);
}

/**
 * Sends one request of any method as `guardedGet` does, and reads the answer's body whatever its status (up to
 * `maxBytes`), since an API's refusal explains itself there. Never throws.
 */
export function guardedRequest(raw: string, options: GuardedRequestOptions): Promise<GuardedGetResult> {
  return exchange(raw, options, true);
}

async function exchange(raw: string, options: GuardedRequestOptions, errorBodies: boolean): Promise<GuardedGetResult> {
  const url = URL.parse(raw);
  if (url === null || url.protocol !== 'https:') return { kind: 'refused', reason: 'must be an https URL' };
  if (url.username !== '' || url.password !== '') return { kind: 'refused', reason: 'must not contain a username or password' };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    return await fetchPinned(url, options, errorBodies, controller.signal);
  } catch (error) {
    return {
      kind: 'failed',
      reason: controller.signal.aborted ? `timed out after ${options.timeoutMs / 1000} s` : describeNetworkError(error),
    };
  } finally {
    clearTimeout(timer);
  }
}

async function fetchPinned(url: URL, options: GuardedRequestOptions, errorBodies: boolean, signal: AbortSignal): Promise<GuardedGetResult> {
  const target = await pinTarget(url, options.allow, options.lookup, signal);
  if (target.kind === 'unresolved') return { kind: 'failed', reason: target.reason };
  if (target.kind === 'blocked') return { kind: 'refused', reason: target.reason };
  const headers = { Accept: 'application/json', 'User-Agent': options.userAgent ?? DEFAULT_USER_AGENT, ...options.headers };
  const request = { method: options.method, headers, signal, ...(options.body !== undefined && { body: options.body }) };
  const response = await requestPinned(url, target.address, request);
  const statusCode = response.statusCode ?? 0;
  if (!errorBodies && (statusCode < 200 || statusCode >= 300)) {
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
