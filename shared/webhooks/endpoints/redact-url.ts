/**
 * An endpoint's url as audit entries and `service.webhook_endpoint.disabled` events show it: scheme, host, port
 * and path, with the query string (where receivers often put a token) and any fragment replaced by `…`, and any
 * user info dropped (registration refuses it; an old record could still hold one). Delivery uses the url in full;
 * the full url stays readable only on the endpoint record itself, by those who may manage webhooks.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Never stored (registration parses every url), but an unparseable string shows nothing of itself.
    return '…';
  }
  const query = url.search !== '' || raw.includes('?') ? '?…' : '';
  const fragment = url.hash !== '' || raw.includes('#') ? '#…' : '';
  return `${url.protocol}//${url.host}${url.pathname}${query}${fragment}`;
}
