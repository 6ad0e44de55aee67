import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, previousSecretExpiry, secretHint, signatureHeader } from '../../../../shared/webhooks/endpoints/signature.ts';

// Stripe's official verifier stands in for a customer's receiver; no request is ever made with this key.
const stripe = new Stripe('sk_test_x');
const BODY = JSON.stringify({ id: 'evt_01J', type: 'service.secret.rotate', data: { key: 'API_TOKEN', version: 2 } });

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('signatureHeader', () => {
  it('verifies with Stripe constructEvent, keyed with the whole whsec_ secret', () => {
    // Prepare
    const secret = newSigningSecret();

    // Act
    const header = signatureHeader([secret], BODY, nowSeconds());

    // Assess
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripe.webhooks.constructEvent(BODY, header, secret, 300)).toMatchObject({ id: 'evt_01J' });
  });

  it('is byte for byte the header Stripe generates for the same inputs', () => {
    // Prepare
    const secret = 'whsec_test_fixed_secret_1234';
    const timestamp = 1_700_000_000;

    // Act
    const header = signatureHeader([secret], BODY, timestamp);

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
    const header = signatureHeader([secret], BODY, nowSeconds());
    const [body, verifyingSecret] = alter(secret) as [string, string];

    // Act / Assess
    expect(() => stripe.webhooks.constructEvent(body, header, verifyingSecret, 300)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('is rejected by the 5-minute tolerance when t is too old', () => {
    // Prepare
    const secret = newSigningSecret();
    const header = signatureHeader([secret], BODY, nowSeconds() - 301);

    // Act / Assess
    expect(() => stripe.webhooks.constructEvent(BODY, header, secret, 300)).toThrow(/tolerance/i);
  });

  it('changes with a fresh t for the same body', () => {
    // Prepare
    const secret = newSigningSecret();

    // Act
    const first = signatureHeader([secret], BODY, 1_700_000_000);
    const retry = signatureHeader([secret], BODY, 1_700_000_060);

    // Assess
    expect(first.startsWith('t=1700000000,')).toBe(true);
    expect(retry.startsWith('t=1700000060,')).toBe(true);
    expect(retry.split('v1=')[1]).not.toBe(first.split('v1=')[1]);
  });
});

describe('signatureHeader during a rotation (two secrets)', () => {
  it('signs with each secret, newest first, and Stripe constructEvent accepts it with either, not with a third', () => {
    // Prepare
    const [current, previous, other] = [newSigningSecret(), newSigningSecret(), newSigningSecret()];
    const t = nowSeconds();

    // Act
    const header = signatureHeader([current, previous], BODY, t);

    // Assess
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const [, newest, oldest] = header.split(',');
    expect(`t=${t},${newest}`).toBe(signatureHeader([current], BODY, t));
    expect(`t=${t},${oldest}`).toBe(signatureHeader([previous], BODY, t));
    expect(stripe.webhooks.constructEvent(BODY, header, current, 300)).toMatchObject({ id: 'evt_01J' });
    expect(stripe.webhooks.constructEvent(BODY, header, previous, 300)).toMatchObject({ id: 'evt_01J' });
    expect(() => stripe.webhooks.constructEvent(BODY, header, other, 300)).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('is byte for byte what Stripe generates for each secret, joined', () => {
    // Prepare
    const secrets = ['whsec_test_fixed_secret_new1', 'whsec_test_fixed_secret_old2'];
    const timestamp = 1_700_000_000;

    // Act
    const header = signatureHeader(secrets, BODY, timestamp);

    // Assess
    const stripeSignatures = secrets.map(
      (secret) => stripe.webhooks.generateTestHeaderString({ payload: BODY, secret, timestamp }).split(',')[1],
    );
    expect(header).toBe(`t=${timestamp},${stripeSignatures.join(',')}`);
  });

  it('refuses to sign with no secret at all', () => {
    expect(() => signatureHeader([], BODY, nowSeconds())).toThrow(/at least one signing secret/);
  });
});

describe('previousSecretExpiry', () => {
  it('is the expiry while it is in the future, else null (none, or passed)', () => {
    // Prepare
    const until = '2026-03-02T10:00:00.000Z';
    const at = Date.parse(until);

    // Act / Assess
    expect(previousSecretExpiry({ previousSecretExpiresAt: until }, at - 1)).toBe(until);
    expect(previousSecretExpiry({ previousSecretExpiresAt: until }, at)).toBeNull();
    expect(previousSecretExpiry({ previousSecretExpiresAt: until }, at + 1)).toBeNull();
    expect(previousSecretExpiry({ previousSecretExpiresAt: null }, 0)).toBeNull();
    expect(previousSecretExpiry({}, 0)).toBeNull();
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
