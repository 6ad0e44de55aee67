import { checkWebhookUrl, parseAllowedCidrs } from '../net/ssrf.ts';
import type { UrlCheck } from './stream-targets.ts';

/**
 * A stream's url through the webhooks' SSRF guard (decisions.md v1.4, "Audit streams": every outbound call of a
 * stream passes it), from the same allow-list (`WEBHOOK_ALLOW_PRIVATE_CIDRS` opens private ranges: the local stack
 * and tests, never the CDK stack). https only, always, as for webhooks: a local receiver speaks TLS.
 */
export function streamUrlCheck(allowPrivateCidrs: string | undefined): UrlCheck {
  const allow = parseAllowedCidrs(allowPrivateCidrs);
  return async (url) => {
    const verdict = await checkWebhookUrl(url, { allow });
    return verdict.ok ? { ok: true } : { ok: false, reason: verdict.reason };
  };
}
