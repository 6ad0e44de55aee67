import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { buildAnswer, compileAnswer } from '../../../shared/platform/http/build-answer.ts';
import { revealResult, secretListItem, secretWriteResult } from '../../../shared/secrets/secret-answers.ts';
import { auditEntryAnswer } from '../../../shared/audit/audit-answers.ts';
import { deliveryAnswer, webhookEndpointAnswer } from '../../../shared/webhooks/endpoints/webhook-answers.ts';

const T = '2026-11-23T12:00:00.000Z';
const listItem = { id: 'sec_01ABC', key: 'DATABASE_URL', currentVersion: 2, createdAt: T, updatedAt: T };
const delivery = {
  id: 'whd_01A',
  endpointId: 'we_01B',
  eventId: 'evt_01C',
  eventType: 'service.secret.create',
  status: 'failed',
  attempts: 1,
  statusCode: null,
  lastError: 'timeout',
  nextRetryAt: null,
  createdAt: T,
  updatedAt: T,
  attemptLog: [{ attempt: 1, at: T, statusCode: 500, durationMs: 12.5, error: null }],
};

/** The error z.parse throws for `data`, or undefined. */
function zodError(schema: z.ZodMiniType, data: unknown): string | undefined {
  try {
    z.parse(schema, data);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('compiled answers', () => {
  it('keep only the fields the schema names, at every depth', () => {
    // Prepare: stored fields that must never leave, beside the named ones
    const stored = { ...listItem, tokenHash: 'h', sealed: { ciphertext: 'c' }, PK: 'WS#1' };
    const nested = { ...delivery, body: '{"password":1}', attemptLog: [{ ...delivery.attemptLog[0], attemptToken: 'tok' }] };
    // Act
    const list = compileAnswer(z.array(secretListItem()))([stored, stored]);
    const one = compileAnswer(deliveryAnswer())(nested);
    const revealed = buildAnswer(revealResult(), { key: 'K', version: 1, value: 'v', sealed: 'x', encryptedDataKey: 'k' });
    // Assess
    expect(list).toEqual([listItem, listItem]);
    expect(Object.keys((list as object[])[0]!)).toEqual(['id', 'key', 'currentVersion', 'createdAt', 'updatedAt']);
    expect(one).toEqual(delivery);
    expect(JSON.stringify(one)).not.toContain('attemptToken');
    expect(JSON.stringify(one)).not.toContain('password');
    expect(revealed).toEqual({ key: 'K', version: 1, value: 'v' });
  });

  it('answer exactly what z.parse answers, key order included', () => {
    const cases: [z.ZodMiniType, unknown][] = [
      [z.array(secretListItem()), [listItem, { ...listItem, extra: 1 }]],
      [deliveryAnswer(), delivery],
      [secretWriteResult(), { id: 'sec_01', key: 'K', version: 3 }],
      [
        webhookEndpointAnswer(),
        {
          id: 'we_1',
          url: 'https://x',
          events: ['a'],
          description: null,
          enabled: true,
          secretHint: 'whsec_ab',
          createdAt: T,
          updatedAt: T,
          disabledAt: null,
          disabledReason: null,
          consecutiveFailures: 0,
          failingSince: null,
          previousSecretExpiresAt: T,
          sealedSecret: 's',
          previousSealedSecret: 's',
        },
      ],
      // A record is left to zod: the answer is zod's own.
      [
        auditEntryAnswer(),
        {
          id: 'aud_1',
          action: 'secret.reveal',
          actorSub: 'key_1',
          target: 'sec_1',
          metadata: { bulk: true },
          createdAt: T,
          workspaceId: 'ws_1',
        },
      ],
    ];
    for (const [schema, data] of cases) expect(JSON.stringify(compileAnswer(schema)(data))).toBe(JSON.stringify(z.parse(schema, data)));
  });

  it('refuse what z.parse refuses, with its error', () => {
    const broken: [z.ZodMiniType, unknown][] = [
      [secretListItem(), { ...listItem, id: 'key_01ABC' }],
      [secretListItem(), { ...listItem, createdAt: '2026-11-23 12:00' }],
      [secretListItem(), { ...listItem, currentVersion: 1.5 }],
      [secretListItem(), { ...listItem, key: undefined }],
      [deliveryAnswer(), { ...delivery, status: 'lost' }],
      [deliveryAnswer(), { ...delivery, attemptLog: [{ ...delivery.attemptLog[0], durationMs: Number.NaN }] }],
      [z.array(secretListItem()), { 0: listItem }],
      [revealResult(), null],
    ];
    for (const [schema, data] of broken) {
      const expected = zodError(schema, data);
      expect(expected).toBeDefined();
      expect(() => compileAnswer(schema)(data)).toThrow(expected);
    }
  });
});
