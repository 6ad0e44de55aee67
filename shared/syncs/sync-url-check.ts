import { checkWebhookUrl, parseAllowedCidrs } from '../net/ssrf.ts';
import type { UrlCheck } from './sync-destinations.ts';

/**
 * GitHub's `apiUrl` through the webhooks' SSRF guard (decisions.md v1.4, "Syncs": every outbound call of a sync passes
 * it), from the same allow-list. Where the allow-list opens private ranges (`WEBHOOK_ALLOW_PRIVATE_CIDRS`: the local
 * stack and tests, never the CDK stack) a plain-http url is let through too, its host checked as an https one's,
 * since local stand-ins speak http.
 */
export function syncUrlCheck(allowPrivateCidrs: string | undefined): UrlCheck {
  const allow = parseAllowedCidrs(allowPrivateCidrs);
  return async (raw) => {
    const url = URL.parse(raw);
    const open = Boolean(allowPrivateCidrs) && url?.protocol === 'http:';
    const verdict = await checkWebhookUrl(open ? `https:${raw.slice('http:'.length)}` : raw, { allow });
    return verdict.ok ? { ok: true } : { ok: false, reason: verdict.reason };
  };
}
