import { describe, expect, it } from 'vitest';
import { newId } from '../../../../shared/platform/ids.ts';
import {
  formatDeliveryMessage,
  MAX_ATTEMPT_TOKEN_LENGTH,
  newAttemptToken,
  parseDeliveryMessage,
} from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import { assertScheduleName } from '../../../../shared/webhooks/deliveries/one-time-scheduler.ts';

describe('attempt tokens', () => {
  it('pass the queue message rule they live beside: a message carrying one reads back unchanged', () => {
    // Prepare
    const message = { workspaceId: newId('workspace'), deliveryId: newId('delivery'), attemptToken: newAttemptToken() };

    // Act
    const read = parseDeliveryMessage(formatDeliveryMessage(message));

    // Assess
    expect(read).toEqual(message);
  });

  it('are short base64url strings that fit the schedule name of a delayed attempt', () => {
    // Prepare
    const tokens = Array.from({ length: 50 }, newAttemptToken);

    // Act
    const names = tokens.map((token) => `${newId('delivery')}-${token}`);

    // Assess
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{12}$/);
      expect(token.length).toBeLessThanOrEqual(MAX_ATTEMPT_TOKEN_LENGTH);
    }
    for (const name of names) expect(() => assertScheduleName(name)).not.toThrow();
  });

  it('differ from one call to the next, so a stale message never matches a fresh token', () => {
    // Act
    const tokens = new Set(Array.from({ length: 1000 }, newAttemptToken));

    // Assess
    expect(tokens.size).toBe(1000);
  });
});
