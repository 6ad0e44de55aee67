import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, secretHint, signatureHeader } from '../../../shared/webhooks/signature.ts';

// Stripe's official verifier stands in for a customer's receiver; no request is ever made with this key.
const stripe = new Stripe('sk_test_x');
const BODY = JSON.stringify({ id: 'evt_01J', type: 'service.secret.rotate', data: { key: 'API_TOKEN', version: 2 } });

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('signatureHeader', () => {
  it('verifies with Stripe constructEvent, keyed with the whole whsec_ secret', () => {
    // Prepare
    const secret = newSigningSecret();

    // Act
    const header = signatureHeader(secret, BODY, nowSeconds());

    // Assess
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripe.webhooks.constructEvent(BODY, header, secret, 300)).toMatchObject({ id: 'evt_01J' });
  });

  it('is byte for byte the header Stripe generates for the same inputs', () => {
    // Prepare
    const secret = 'whsec_test_fixed_secret_1234';
    const timestamp = 1_700_000_000;

    // Act
    const header = signatureHeader(secret, BODY, timestamp);

    // Assess
    expect(header).toBe(stripe.webhooks.generateTestHeaderString({ payload: BODY, secret, timestamp }));
  });

  it.each([
    ['a tampered body', (secret: string) => [BODY.replace('API_TOKEN', 'API_TOKEM'), secret]],
    ['another secret', () => [BODY, newSigningSecret()]],
    ['the secret without its whsec_ prefix', (secret: string) => [BODY, secret.slice('whsec_'.length)]],
  ])('is rejected for %s', (_case, alter) => {
    // Prepare
    const secret = newSigningSecret();
    const header = signatureHeader(secret, BODY, nowSeconds());
    const [body, verifyingSecret] = alter(secret) as [string, string];

    // Act / Assess
    expect(() => stripe.webhooks.constructEvent(body, header, verifyingSecret, 300)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('is rejected by the 5-minute tolerance when t is too old', () => {
    // Prepare
    const secret = newSigningSecret();
    const header = signatureHeader(secret, BODY, nowSeconds() - 301);

    // Act / Assess
    expect(() => stripe.webhooks.constructEvent(BODY, header, secret, 300)).toThrow(/tolerance/i);
  });

  it('changes with a fresh t for the same body', () => {
    // Prepare
    const secret = newSigningSecret();

    // Act
    const first = signatureHeader(secret, BODY, 1_700_000_000);
    const retry = signatureHeader(secret, BODY, 1_700_000_060);

    // Assess
    expect(first.startsWith('t=1700000000,')).toBe(true);
    expect(retry.startsWith('t=1700000060,')).toBe(true);
    expect(retry.split('v1=')[1]).not.toBe(first.split('v1=')[1]);
  });
});

describe('newSigningSecret', () => {
  it('is whsec_ and 32 random bytes in base64url', () => {
    // Prepare / Act
    const secrets = [newSigningSecret(), newSigningSecret()];

    // Assess
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    }
    expect(secrets[0]).not.toBe(secrets[1]);
  });
});

describe('secretHint', () => {
  it('shows the prefix, an ellipsis and the last four characters only', () => {
    // Prepare
    const secret = 'whsec_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_wxyz';

    // Act
    const hint = secretHint(secret);

    // Assess
    expect(hint).toBe('whsec_…wxyz');
  });
});
