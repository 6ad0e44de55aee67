import type { Config } from '../../platform/config.ts';
import { ATTEMPT_TIMEOUT_MS } from './retry-policy.ts';
import type { ConnectionPool } from '../../net/connection-pool.ts';
import { sendWebhook } from './sender.ts';
import { checkWebhookUrl, parseAllowedCidrs } from '../../net/ssrf.ts';

/**
 * The SSRF guard on an endpoint's url (at registration and PATCH) and the guarded sender (every attempt), both from
 * the one allow-list of private ranges in config, so the check and the send never disagree.
 */
export function guardedHttpFromConfig(config: Config) {
  const allow = parseAllowedCidrs(config.webhooks.allowPrivateCidrs);
  return {
    checkUrl: async (url: string) => {
      const verdict = await checkWebhookUrl(url, { allow });
      return verdict.ok ? ({ ok: true } as const) : verdict;
    },
    /** One guarded attempt; `connections` is the invocation's keep-alive pool (the worker's), if any. */
    send: (request: { url: string; body: string; headers: Record<string, string> }, connections?: ConnectionPool) =>
      sendWebhook({ ...request, allow, timeoutMs: ATTEMPT_TIMEOUT_MS, ...(connections && { connections }) }),
  };
}
