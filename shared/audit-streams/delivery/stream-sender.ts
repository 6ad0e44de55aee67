import { guardedRequest, type GuardedGetResult, type GuardedRequestOptions } from '../../net/guarded-get.ts';
import { parseAllowedCidrs } from '../../net/ssrf.ts';
import type { StreamRequest } from './stream-formats.ts';
import type { DeliveryResult } from './stream-health.ts';

/**
 * The POST of one batch through the webhooks' SSRF guard (shared/net: resolved once, every address checked, pinned,
 * no redirects), with the webhooks' 10-second deadline. Only a 2xx delivers; the reasons of the others name a status
 * or a code, never the url or a header.
 */

/** A receiver has this long for the whole exchange, as a webhook receiver has (decisions.md: the webhook schedule). */
export const STREAM_TIMEOUT_MS = 10_000;
/**
 * The most of an answer read: a 2xx's body is read (and dropped) up to this, since a larger one counts as a failure
 * in the guarded request; Splunk and Datadog answer a few bytes, and a receiver of ours has no reason to answer more.
 */
export const STREAM_MAX_ANSWER_BYTES = 65_536;

/** One guarded request, as shared/net sends it (tests give their own). */
export type GuardedTransport = (url: string, options: GuardedRequestOptions) => Promise<GuardedGetResult>;

/** The sender of the worker: the allow-list of private ranges from WEBHOOK_ALLOW_PRIVATE_CIDRS, as the webhooks'. */
export function guardedStreamSender(allowPrivateCidrs: string | undefined, transport: GuardedTransport = guardedRequest) {
  const allow = parseAllowedCidrs(allowPrivateCidrs);
  return async (request: StreamRequest): Promise<DeliveryResult> => {
    const limits = { timeoutMs: STREAM_TIMEOUT_MS, maxBytes: STREAM_MAX_ANSWER_BYTES };
    const result = await transport(request.url, { allow, method: 'POST', headers: request.headers, body: request.body, ...limits });
    if (result.kind === 'answered') {
      const ok = result.statusCode >= 200 && result.statusCode < 300;
      if (ok) return { ok: true, statusCode: result.statusCode };
      return { ok: false, statusCode: result.statusCode, reason: `the receiver answered ${result.statusCode}` };
    }
    // Refused: the guard said no to the url's address; failed: DNS, connection, TLS, the deadline.
    const reason = result.kind === 'refused' ? `refused by the SSRF guard: ${result.reason}` : result.reason;
    return { ok: false, statusCode: null, reason };
  };
}
