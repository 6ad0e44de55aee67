import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import { signatureHeader } from '../../../../shared/webhooks/endpoints/signature.ts';
import { HOUR, sealedFor, T0 } from '../../support/fakes.ts';
import { delivery, endpoint, SIGNING_SECRET, workerHarness, WS } from '../pipeline-support.ts';

// Stripe's verifier stands in for a receiver; no request is ever made with this key.
const stripe = new Stripe('sk_test_unused');
const PREVIOUS = 'whsec_unit-test-previous-secret';
const message = { workspaceId: WS, deliveryId: 'whd_01', attemptToken: 'tok-1' };
const context = { workspaceId: WS, endpointId: 'we_01' };

/** An endpoint rotated at T0 whose previous secret signs until `until`. */
const rotated = (until: number) => endpoint({ previousSealedSecret: sealedFor(PREVIOUS, context), previousSecretExpiresAt: iso(until) });

describe('worker: signing during a secret rotation', () => {
  it('signs with the current and the previous secret while the previous one has not expired, both opened under the endpoint', async () => {
    // Prepare
    const h = workerHarness({ deliveries: [delivery()], endpoints: [rotated(T0 + HOUR)] });
    // Act
    await h.work(message);
    // Assess
    const [request] = h.requests;
    const header = request!.headers['Service-Signature']!;
    expect(header).toBe(signatureHeader([SIGNING_SECRET, PREVIOUS], request!.body, T0 / 1000));
    expect(h.cipher.decrypted).toEqual([context, context]);
    for (const secret of [SIGNING_SECRET, PREVIOUS]) {
      expect(stripe.webhooks.constructEvent(request!.body, header, secret, 300, undefined, T0)).toMatchObject({ id: 'evt_01' });
    }
  });

  it('signs with the current secret alone once the previous one has expired by its clock, and never opens the old one', async () => {
    // Prepare: the overlap ended exactly now
    const h = workerHarness({ deliveries: [delivery()], endpoints: [rotated(T0)] });
    // Act
    await h.work(message);
    // Assess
    const [request] = h.requests;
    const header = request!.headers['Service-Signature']!;
    expect(header).toBe(signatureHeader([SIGNING_SECRET], request!.body, T0 / 1000));
    expect(h.cipher.decrypted).toEqual([context]);
    expect(() => stripe.webhooks.constructEvent(request!.body, header, PREVIOUS, 300, undefined, T0)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('ignores an expiry without a sealed previous secret (a rotation with no overlap leaves neither)', async () => {
    const h = workerHarness({ deliveries: [delivery()], endpoints: [endpoint({ previousSecretExpiresAt: iso(T0 + HOUR) })] });
    await h.work(message);
    expect(h.requests[0]!.headers['Service-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });
});
