/**
 * The base URL rule of the SDK and the CLI: every request carries the token in its Authorization header (and a
 * reveal answers values), so plain `http://` is allowed only to this machine, where nothing on the network reads it:
 * the local stack, or a tunnel's local end. `https://` is allowed to any host.
 */

/** The rule, as every refusal states it. */
const RULE = 'the base URL must use https:// (http:// is allowed only to a loopback host: 127.0.0.0/8, [::1] or localhost)';

/**
 * Whether a parsed host is this machine. The URL parser has already made every spelling of an IPv4 address
 * (`0x7f.1`, `2130706433`, `127.1`) dotted decimal and lower-cased names, so exact forms are enough; a name that
 * merely starts with one (`127.0.0.1.example.com`, `localhost.example.com`) is not loopback.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Refuses (TypeError) a base URL that is not `https://`, or `http://` to a loopback host; answers it parsed. The
 * message names the rule and the URL's scheme and host only: user info or a path could hold a credential.
 */
export function refuseInsecureBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`the base URL is not an absolute URL; ${RULE}`);
  }
  const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!allowed) throw new TypeError(`refused base URL ${url.protocol}//${url.host}: ${RULE}`);
  return url;
}
