import type { Agent, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { checkTarget, hostOf, systemLookup } from './ssrf.ts';
import type { AllowedCidrs, LookupAll, TargetCheck } from './ssrf.ts';

/**
 * The one pinned HTTPS request of the service, used by the webhook sender (POST, shared/webhooks/deliveries/sender.ts) and the
 * guarded requests (OIDC discovery's GET, a sync's GitHub calls; guarded-get.ts): the host is resolved once, every address is checked with the SSRF
 * guard, and the request goes to the first checked address (never re-resolved, so DNS rebinding cannot swap it)
 * with SNI and Host of the original name.
 */

/** Where a url may be sent: the checked address, or why not (a DNS failure, or the SSRF guard's refusal). */
export type PinnedTarget =
  | { kind: 'pinned'; host: string; address: string }
  | { kind: 'unresolved'; reason: string }
  | { kind: 'blocked'; reason: string };

/** Resolves and checks the url's host before the deadline; never re-resolved afterwards. */
export async function pinTarget(url: URL, allow: AllowedCidrs, lookup: LookupAll | undefined, signal: AbortSignal): Promise<PinnedTarget> {
  const host = hostOf(url);
  const target = await beforeDeadline(checkTarget(host, allow, lookup ?? systemLookup), signal);
  if (target.kind === 'unresolved') return { kind: 'unresolved', reason: `DNS: ${target.code}` };
  if (target.kind === 'blocked') {
    const subject = host === target.address ? host : `${host} resolves to ${target.address}`;
    return { kind: 'blocked', reason: `blocked: ${subject} (${target.reason})` };
  }
  return { kind: 'pinned', host, address: target.addresses[0]! };
}

export interface PinnedRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The caller's headers; Host is set last, from the url, so no caller header can redirect it. */
  headers: OutgoingHttpHeaders;
  body?: string;
  /** A keep-alive agent for this address, or none (one connection, closed after the answer). */
  agent?: Agent | undefined;
  signal: AbortSignal;
}

/**
 * Sends to the checked address; `servername` and `Host` carry the original name so TLS verifies the name, not the
 * IP. A failure carries `reusedSocket` (whether a pooled connection was reused) for the caller's one retry.
 */
export function requestPinned(url: URL, address: string, request: PinnedRequest): Promise<IncomingMessage> {
  const host = hostOf(url);
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      {
        host: address,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: request.method,
        // SNI must not carry an IP literal (RFC 6066); certificate checks then use the IP itself.
        servername: isIP(host) === 0 ? host : '',
        headers: { ...request.headers, Host: url.host },
        agent: request.agent ?? false,
        signal: request.signal,
      },
      resolve,
    );
    outgoing.on('error', (error) => reject(Object.assign(error, { reusedSocket: outgoing.reusedSocket })));
    outgoing.end(request.body);
  });
}

/**
 * Reads the answer up to `maxBytes`: the body (at most `maxBytes`), and whether it was whole. Reading stops, and the
 * connection is dropped, as soon as the answer passes the limit, so a huge answer costs nothing; a pooled
 * connection is reused only when the answer was read whole.
 */
export async function readUpTo(response: IncomingMessage, maxBytes: number): Promise<{ body: Buffer; whole: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream and its socket.
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > maxBytes) return { body: Buffer.concat(chunks).subarray(0, maxBytes), whole: false };
  }
  return { body: Buffer.concat(chunks), whole: true };
}

/** Rejects when the deadline passes: `dns.lookup` cannot be cancelled, but the caller must not wait for it. */
export function beforeDeadline(work: Promise<TargetCheck>, signal: AbortSignal): Promise<TargetCheck> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('deadline'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A network error as a stable phrase from its code alone (`known` names some codes); messages can quote more. */
export function describeNetworkError(error: unknown, known: Readonly<Record<string, string>> = {}): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'network error';
  const named = known[code];
  if (named !== undefined) return named;
  if (/CERT|SSL|TLS|SIGNATURE|^EPROTO$/.test(code)) return `TLS: ${code}`;
  if (code.startsWith('HPE_')) return `invalid HTTP response (${code})`;
  return `network error: ${code}`;
}
