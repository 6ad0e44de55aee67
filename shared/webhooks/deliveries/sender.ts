import type { IncomingMessage } from 'node:http';
import type { ConnectionLease, ConnectionPool } from '../../net/connection-pool.ts';
import { describeNetworkError, pinTarget, readUpTo, requestPinned } from '../../net/pinned-request.ts';
import type { AllowedCidrs, LookupAll } from '../../net/ssrf.ts';

/** One delivery attempt as the attempt log records it. */
export type AttemptResult = {
  ok: boolean;
  /** The receiver's status, or null when no answer arrived (blocked, DNS, connection, TLS, timeout before headers). */
  statusCode: number | null;
  durationMs: number;
  /** Human-readable cause of a failure; never holds the request body or a header value. */
  error: string | null;
  /** At most 256 characters of the receiver's answer, control characters flattened; absent when it was empty. */
  responseSnippet?: string;
};

/** What `sendWebhook` needs; the caller supplies every header but Host, Content-Length and User-Agent. */
export type WebhookRequest = {
  url: string;
  body: string;
  headers: Record<string, string>;
  allow: AllowedCidrs;
  /** Deadline for the whole exchange, DNS to the last body byte read (default 10 000, api.md section 6). */
  timeoutMs?: number;
  /** How much of the answer is read before the connection is dropped (default 4096). */
  maxResponseBytes?: number;
  lookup?: LookupAll;
  /** Keep-alive connections of the current worker invocation; without it each attempt opens and closes its own. */
  connections?: ConnectionPool;
};

const USER_AGENT = 'secrets-service-webhooks/1.0';
const SNIPPET_CHARS = 256;
const LOCATION_CHARS = 200;

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/**
 * Makes one delivery attempt: resolves the host once, checks every address with the SSRF guard, then POSTs to the
 * first checked address (never re-resolving, so DNS rebinding cannot swap it) with SNI and Host of the original
 * name. Redirects are not followed; only 2xx succeeds. Never throws: every failure is an `AttemptResult`.
 */
export async function sendWebhook(request: WebhookRequest): Promise<AttemptResult> {
  const started = performance.now();
  const timeoutMs = request.timeoutMs ?? 10_000;
  // One deadline for the whole exchange: per-socket idle timeouts would let a receiver trickle bytes for ever.
  const deadline = makeDeadline(timeoutMs);
  const progress: { statusCode: number | null } = { statusCode: null };
  try {
    const outcome = await attempt(request, deadline, progress);
    return { ...outcome, durationMs: elapsedSince(started) };
  } catch (error) {
    const message = deadline.signal.aborted ? `timed out after ${timeoutMs / 1000} s` : describeNetworkError(error, NETWORK_ERRORS);
    return { ok: false, statusCode: progress.statusCode, durationMs: elapsedSince(started), error: message };
  } finally {
    deadline.clear();
  }
}

type Outcome = Omit<AttemptResult, 'durationMs'>;
type Deadline = ReturnType<typeof makeDeadline>;

/** An abort signal after `ms`, which a wait for a pooled connection pushes back (it is our time, not the receiver's). */
function makeDeadline(ms: number) {
  const controller = new AbortController();
  let due = performance.now() + ms;
  let timer = setTimeout(() => controller.abort(), ms);
  return {
    signal: controller.signal,
    extend(byMs: number) {
      if (controller.signal.aborted || byMs <= 0) return;
      clearTimeout(timer);
      due += byMs;
      timer = setTimeout(() => controller.abort(), due - performance.now());
    },
    clear: () => clearTimeout(timer),
  };
}

async function attempt(request: WebhookRequest, deadline: Deadline, progress: { statusCode: number | null }): Promise<Outcome> {
  const { signal } = deadline;
  const url = URL.parse(request.url);
  if (url === null || url.protocol !== 'https:') return failure('blocked: url is not a valid https url');
  const target = await pinTarget(url, request.allow, request.lookup, signal);
  if (target.kind !== 'pinned') return failure(target.reason);
  const { host, address } = target;
  // The pool key is the address just checked (with port and TLS name): a pooled connection goes nowhere else.
  const lease = await request.connections?.lease(`${address}|${url.port}|${host}`);
  deadline.extend(lease?.waitedMs ?? 0);
  try {
    return await exchange(url, address, request, signal, progress, lease);
  } finally {
    lease?.release();
  }
}

/** The POST and its answer, read up to the size limit. */
async function exchange(
  url: URL,
  address: string,
  request: WebhookRequest,
  signal: AbortSignal,
  progress: { statusCode: number | null },
  lease: ConnectionLease | undefined,
): Promise<Outcome> {
  const response = await postOnce(url, address, request, signal, lease);
  const statusCode = response.statusCode ?? 0;
  progress.statusCode = statusCode;
  if (statusCode >= 300 && statusCode < 400) {
    response.destroy();
    return { ...failure(redirectMessage(statusCode, response.headers.location)), statusCode };
  }
  const snippet = toSnippet((await readUpTo(response, request.maxResponseBytes ?? 4096)).body);
  const ok = statusCode >= 200 && statusCode < 300;
  const result: Outcome = { ok, statusCode, error: ok ? null : `HTTP ${statusCode}` };
  return snippet === undefined ? result : { ...result, responseSnippet: snippet };
}

/**
 * POSTs once more when a pooled connection turns out closed by the receiver before it answered (its idle timeout
 * raced our reuse; Node's own advice). Almost always the request never reached it; a receiver that read it and then
 * reset the connection gets it twice, which at-least-once delivery allows (receivers dedupe on the delivery id).
 */
async function postOnce(
  url: URL,
  address: string,
  request: WebhookRequest,
  signal: AbortSignal,
  lease: ConnectionLease | undefined,
): Promise<IncomingMessage> {
  try {
    return await post(url, address, request, signal, lease);
  } catch (error) {
    if (!(error as { reusedSocket?: boolean }).reusedSocket || (error as { code?: string }).code !== 'ECONNRESET' || signal.aborted)
      throw error;
    return post(url, address, request, signal, lease);
  }
}

/** POSTs to the checked IP (net/pinned-request.ts); our headers come last so a caller's cannot misstate the length. */
function post(
  url: URL,
  address: string,
  request: WebhookRequest,
  signal: AbortSignal,
  lease: ConnectionLease | undefined,
): Promise<IncomingMessage> {
  const headers = { ...request.headers, 'User-Agent': USER_AGENT, 'Content-Length': String(Buffer.byteLength(request.body)) };
  return requestPinned(url, address, { method: 'POST', headers, body: request.body, agent: lease?.agent, signal });
}

function redirectMessage(statusCode: number, location: string | undefined): string {
  if (location === undefined) return `redirect (${statusCode}) not followed`;
  const shown = location.length > LOCATION_CHARS ? `${location.slice(0, LOCATION_CHARS)}…` : location;
  return `redirect (${statusCode}) to ${flatten(shown)} not followed`;
}

function toSnippet(body: Buffer): string | undefined {
  const text = flatten(body.toString('utf8')).trim().slice(0, SNIPPET_CHARS);
  return text === '' ? undefined : text;
}

/** Control characters would break log lines and the console's one-line attempt view. */
function flatten(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}

function failure(error: string): Outcome {
  return { ok: false, statusCode: null, error };
}

function elapsedSince(started: number): number {
  return Math.round(performance.now() - started);
}
