import { createHmac, timingSafeEqual } from 'node:crypto';
import type { webhooks } from './api.js';
import { WebhookVerificationError } from './errors.js';

/** Every event the service sends, typed by its `type`. */
export type WebhookEvent = {
  [T in keyof webhooks]: webhooks[T]['post']['requestBody']['content']['application/json'];
}[keyof webhooks];

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers as Record<string, string | string[] | undefined>).find(
    ([key]) => key.toLowerCase() === name.toLowerCase(),
  );
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a webhook request and answers its event. `rawBody` must be the bytes as received (a string or a Buffer),
 * never a parsed object: the signature covers the exact body. The `Service-Signature` header is
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the whole signing secret (`whsec_…`); during a
 * secret rotation it carries one `v1` per secret that signs (new first), and any one matching is enough, compared in
 * constant time. `secret` may be a list (while a receiver switches from the old secret to the new one): the request
 * is accepted when any of them matches any `v1`. `t` must be within `toleranceSeconds` of now.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: HeaderSource,
  secret: string | readonly string[],
  options: { toleranceSeconds?: number; now?: number } = {},
): WebhookEvent {
  if (typeof rawBody !== 'string' && !Buffer.isBuffer(rawBody)) {
    throw new WebhookVerificationError('The body must be the raw request body (a string or a Buffer), not a parsed object');
  }
  const secrets = typeof secret === 'string' ? [secret] : secret;
  // A missing secret is the receiver's configuration, not the request's fault: a TypeError, never a refused request.
  if (secrets.length === 0 || secrets.some((one) => typeof one !== 'string' || one === ''))
    throw new TypeError('verifyWebhook needs the signing secret (whsec_…), or a list of them');
  const signature = header(headers, 'service-signature');
  if (!signature) throw new WebhookVerificationError('The Service-Signature header is missing');
  const parts = signature.split(',').map((part) => part.trim().split('=') as [string, string | undefined]);
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  const candidates = parts.filter(([key, value]) => key === 'v1' && value).map(([, value]) => Buffer.from(value!, 'hex'));
  if (!Number.isInteger(timestamp) || candidates.length === 0)
    throw new WebhookVerificationError('The Service-Signature header is malformed');
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
  const matches = secrets.some((one) => {
    const expected = createHmac('sha256', one).update(`${timestamp}.`).update(body).digest();
    return candidates.some((given) => given.length === expected.length && timingSafeEqual(given, expected));
  });
  if (!matches) throw new WebhookVerificationError('No signature matches the body and the secret');
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('The signature timestamp is outside the tolerance');
  return JSON.parse(body.toString('utf8')) as WebhookEvent;
}
