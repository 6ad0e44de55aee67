import type { Config } from '../config.ts';
import { makeCipher } from '../crypto/envelope.ts';
import { keyProviderFromConfig } from '../crypto/from-config.ts';
import { ATTEMPT_TIMEOUT_MS } from './policy.ts';
import { sendWebhook } from './sender.ts';
import { checkWebhookUrl, parseAllowedCidrs } from './ssrf.ts';

/** What the webhook functions share: the cipher for signing secrets, the SSRF guard and the sender. */
export function webhookToolsFromConfig(config: Config) {
  const allow = parseAllowedCidrs(config.webhooks.allowPrivateCidrs);
  return {
    cipher: makeCipher({ keys: keyProviderFromConfig(config), dataKeyCache: { maxEntries: 200, ttlMs: 5 * 60_000 } }),
    checkUrl: async (url: string) => {
      const verdict = await checkWebhookUrl(url, { allow });
      return verdict.ok ? ({ ok: true } as const) : verdict;
    },
    send: (request: { url: string; body: string; headers: Record<string, string> }) =>
      sendWebhook({ ...request, allow, timeoutMs: ATTEMPT_TIMEOUT_MS }),
  };
}
