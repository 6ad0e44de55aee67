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
  const entry = Object.entries(headers as Record<string, string | string[] | undefined>).find(([key]) => key.toLowerCase() === name.toLowerCase());
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a webhook request and answers its event. `rawBody` must be the bytes as received (a string or a Buffer),
 * never a parsed object: the signature covers the exact body. The `Service-Signature` header is
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the whole signing secret (`whsec_…`); any of
 * several `v1` values may match (a secret rotation), compared in constant time, and `t` must be within
 * `toleranceSeconds` of now.
 */
export function verifyWebhook(rawBody: string | Buffer, headers: HeaderSource, secret: string, options: { toleranceSeconds?: number; now?: number } = {}): WebhookEvent {
  if (typeof rawBody !== 'string' && !Buffer.isBuffer(rawBody)) {
    throw new WebhookVerificationError('The body must be the raw request body (a string or a Buffer), not a parsed object');
  }
  const signature = header(headers, 'service-signature');
  if (!signature) throw new WebhookVerificationError('The Service-Signature header is missing');
  const parts = signature.split(',').map((part) => part.trim().split('=') as [string, string | undefined]);
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  const candidates = parts.filter(([key, value]) => key === 'v1' && value).map(([, value]) => value!);
  if (!Number.isInteger(timestamp) || candidates.length === 0) throw new WebhookVerificationError('The Service-Signature header is malformed');
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  const matches = candidates.some((candidate) => {
    const given = Buffer.from(candidate, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No signature matches the body and the secret');
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('The signature timestamp is outside the tolerance');
  return JSON.parse(body.toString('utf8')) as WebhookEvent;
}
