import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { checkTarget, hostOf, systemLookup } from './ssrf.ts';
import type { AllowedCidrs, LookupAll, TargetCheck } from './ssrf.ts';

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
 * GETs a public https document the way the webhook sender POSTs (sender.ts): the host is resolved once, every address
 * is checked with the SSRF guard, and the request goes to the first checked address (never re-resolved, so DNS
 * rebinding cannot swap it) with SNI and Host of the original name. Redirects are not followed. Never throws; the
 * reasons name codes and statuses, never a header or body.
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
    return { kind: 'failed', reason: controller.signal.aborted ? `timed out after ${options.timeoutMs / 1000} s` : describeError(error) };
  } finally {
    clearTimeout(timer);
  }
}

async function fetchPinned(url: URL, options: GuardedGetOptions, signal: AbortSignal): Promise<GuardedGetResult> {
  const host = hostOf(url);
  const target = await beforeDeadline(checkTarget(host, options.allow, options.lookup ?? systemLookup), signal);
  if (target.kind === 'unresolved') return { kind: 'failed', reason: `DNS: ${target.code}` };
  if (target.kind === 'blocked') {
    const subject = host === target.address ? host : `${host} resolves to ${target.address}`;
    return { kind: 'refused', reason: `blocked: ${subject} (${target.reason})` };
  }
  const response = await getFrom(url, target.addresses[0]!, options.userAgent ?? DEFAULT_USER_AGENT, signal);
  const statusCode = response.statusCode ?? 0;
  if (statusCode < 200 || statusCode >= 300) {
    response.destroy();
    return { kind: 'answered', statusCode, body: Buffer.alloc(0) };
  }
  const body = await readCapped(response, options.maxBytes);
  if (body === undefined) return { kind: 'failed', reason: `answer larger than ${options.maxBytes} bytes` };
  return { kind: 'answered', statusCode, body };
}

/** GETs from the checked IP; `servername` and `Host` carry the original name so TLS verifies the name, not the IP. */
function getFrom(url: URL, address: string, userAgent: string, signal: AbortSignal): Promise<IncomingMessage> {
  const host = hostOf(url);
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      {
        host: address,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        // SNI must not carry an IP literal (RFC 6066); certificate checks then use the IP itself.
        servername: isIP(host) === 0 ? host : '',
        headers: { Accept: 'application/json', 'User-Agent': userAgent, Host: url.host },
        agent: false,
        signal,
      },
      resolve,
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** The whole body, or undefined as soon as it passes `maxBytes` (the connection is then dropped). */
async function readCapped(response: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream and its socket.
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Rejects when the deadline passes: `dns.lookup` cannot be cancelled, but the caller must not wait for it. */
function beforeDeadline(work: Promise<TargetCheck>, signal: AbortSignal): Promise<TargetCheck> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('deadline'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A network error as a stable phrase from its code alone; messages can quote more than we want to keep. */
function describeError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'network error';
  if (/CERT|SSL|TLS|SIGNATURE|^EPROTO$/.test(code)) return `TLS: ${code}`;
  if (code.startsWith('HPE_')) return `invalid HTTP response (${code})`;
  return `network error: ${code}`;
}
