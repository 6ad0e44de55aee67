import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '@secrets-service/sdk';

const stripe = new Stripe('sk_test_unused');
const secret = 'whsec_test_secret_for_unit_tests_0123456789abc';
const event = {
  id: 'evt_1',
  type: 'service.secret.rotate',
  account: 'acc_1',
  occurredAt: '2026-06-01T00:00:00.000Z',
  data: { secretId: 'sec_1', key: 'K', version: 2, projectId: 'proj_1', environmentId: 'env_1', actorSub: 'key_1' },
};
const body = JSON.stringify(event);
const header = (options: { payload?: string; secret?: string; timestamp?: number } = {}) =>
  stripe.webhooks.generateTestHeaderString({
    payload: options.payload ?? body,
    secret: options.secret ?? secret,
    ...(options.timestamp ? { timestamp: options.timestamp } : {}),
  });

describe('verifyWebhook', () => {
  it("accepts the raw body with a signature made by Stripe's own test header, as a string or a Buffer, and answers the event", () => {
    expect(verifyWebhook(body, { 'service-signature': header() }, secret)).toEqual(event);
    expect(verifyWebhook(Buffer.from(body), new Headers({ 'Service-Signature': header() }), secret)).toEqual(event);
  });

  it('accepts any of several v1 signatures (a secret rotation)', () => {
    const good = header();
    const t = good.split(',')[0]!;
    const withTwo = `${t},v1=${'0'.repeat(64)},${good.split(',')[1]}`;
    expect(verifyWebhook(body, { 'Service-Signature': withTwo }, secret).id).toBe('evt_1');
  });

  it('takes a list of secrets (a receiver switching to a rotated secret): any one matching any v1 is enough', () => {
    // Prepare: the service signs with the new secret and the old one during the overlap
    const newSecret = 'whsec_test_rotated_secret_new_0123456789abc';
    const t = Math.floor(Date.now() / 1000);
    const v1 = (key: string) => stripe.webhooks.generateTestHeaderString({ payload: body, secret: key, timestamp: t }).split(',')[1]!;
    const both = `t=${t},${v1(newSecret)},${v1(secret)}`;
    const newOnly = `t=${t},${v1(newSecret)}`;
    // Act / Assess
    expect(verifyWebhook(body, { 'service-signature': both }, [secret]).id).toBe('evt_1');
    expect(verifyWebhook(body, { 'service-signature': both }, [newSecret, secret]).id).toBe('evt_1');
    expect(verifyWebhook(body, { 'service-signature': newOnly }, [newSecret, secret]).id).toBe('evt_1');
    expect(verifyWebhook(body, { 'service-signature': header() }, [newSecret, secret]).id).toBe('evt_1');
    expect(() => verifyWebhook(body, { 'service-signature': newOnly }, [secret, 'whsec_other'])).toThrow(/No signature matches/);
    expect(() => verifyWebhook(body, { 'service-signature': both }, [])).toThrow(TypeError);
  });

  it('refuses a tampered body, a wrong secret, a stale timestamp, a parsed object and a missing or malformed header', () => {
    const refuse = (run: () => unknown, message: RegExp) => expect(run).toThrow(message);
    refuse(() => verifyWebhook(body.replace('"K"', '"L"'), { 'service-signature': header() }, secret), /No signature matches/);
    refuse(() => verifyWebhook(body, { 'service-signature': header({ secret: 'whsec_other' }) }, secret), /No signature matches/);
    refuse(
      () => verifyWebhook(body, { 'service-signature': header({ timestamp: Math.floor(Date.now() / 1000) - 301 }) }, secret),
      /outside the tolerance/,
    );
    expect(
      verifyWebhook(body, { 'service-signature': header({ timestamp: Math.floor(Date.now() / 1000) - 600 }) }, secret, {
        toleranceSeconds: 900,
      }).id,
    ).toBe('evt_1');
    refuse(() => verifyWebhook(event as never, { 'service-signature': header() }, secret), /raw request body/);
    refuse(() => verifyWebhook(body, {}, secret), /header is missing/);
    refuse(() => verifyWebhook(body, { 'service-signature': 'v1=abc' }, secret), /malformed/);
    expect(() => verifyWebhook(body, {}, secret)).toThrow(WebhookVerificationError);
  });
});
