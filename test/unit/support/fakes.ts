import type { Logger } from '../../../shared/platform/logger.ts';
import type { Principal } from '../../../shared/platform/principal.ts';
import type { Clock } from '../../../shared/platform/clock.ts';
import type { Cipher, SealedValue } from '../../../shared/platform/crypto/envelope.ts';
import type { EncryptionContext } from '../../../shared/platform/crypto/key-provider.ts';
import type { DeliveryMessage } from '../../../shared/webhooks/deliveries/delivery-message.ts';
import type { DeliveryMetrics } from '../../../shared/webhooks/deliveries/metrics.ts';
import { deriveServiceMacs, type ServiceMacs } from '../../../shared/platform/crypto/mac-key.ts';
import { API_KEY_AUTHORITY } from '../../../shared/access/permissions.ts';

/**
 * Small hand-written fakes for the service and pipeline unit tests: each service asks for a `Pick<Store, …>`, so a
 * test hands it an object with just those methods. Nothing here talks to AWS or keeps real key material.
 */

export const T0 = Date.parse('2026-03-02T10:00:00.000Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** The service MACs of unit tests, under a fixed made-up key (a deployment's key is random and sealed). */
export const TEST_MACS: ServiceMacs = deriveServiceMacs({ service: Buffer.alloc(32, 7), token: Buffer.alloc(32, 6) });

/** The loader form services and middleware take. */
export const testMacs = async (): Promise<ServiceMacs> => TEST_MACS;

/** A clock the test moves by hand. */
export interface FakeClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

/** A clock standing at `start` until the test moves it. */
export function fakeClock(start = T0): FakeClock {
  let now = start;
  return { now: () => now, set: (ms) => void (now = ms), advance: (ms) => void (now += ms) };
}

/** A caller of workspace `ws_test` holding one credential. */
export function principal(overrides: Partial<Principal> = {}): Principal {
  return {
    workspaceId: 'ws_test',
    accountId: 'acc_test',
    kind: 'api_key',
    actorSub: 'key_actor',
    credentialId: 'key_actor',
    authority: API_KEY_AUTHORITY,
    ...overrides,
  };
}

/** A cipher without KMS that still binds each value to its context: decrypting under another context rejects. */
export interface FakeCipher extends Cipher {
  encrypted: EncryptionContext[];
  decrypted: EncryptionContext[];
}

const contextTag = (context: EncryptionContext) => JSON.stringify(Object.entries(context).sort());

/** See {@link FakeCipher}; the "ciphertext" is reversible base64 and is only ever fake test data. */
export function fakeCipher(): FakeCipher {
  const encrypted: EncryptionContext[] = [];
  const decrypted: EncryptionContext[] = [];
  return {
    encrypted,
    decrypted,
    async encrypt(plaintext, context) {
      encrypted.push(context);
      return { ciphertext: Buffer.from(plaintext).toString('base64'), iv: 'iv', tag: 'tag', encryptedDataKey: contextTag(context) };
    },
    async decrypt(sealed, context) {
      decrypted.push(context);
      if (sealed.encryptedDataKey !== contextTag(context)) throw new Error('fake cipher: context mismatch');
      return Buffer.from(sealed.ciphertext, 'base64').toString();
    },
  };
}

/** A sealed value the fake cipher opens to `plaintext` under `context`. */
export function sealedFor(plaintext: string, context: EncryptionContext): SealedValue {
  return { ciphertext: Buffer.from(plaintext).toString('base64'), iv: 'iv', tag: 'tag', encryptedDataKey: contextTag(context) };
}

/** A queue that records what was sent and when it was due. */
export interface FakeQueue {
  sent: { message: DeliveryMessage; at?: number; viaScheduler?: boolean }[];
  enqueue: (message: DeliveryMessage, options?: { at: number; viaScheduler: boolean }) => Promise<void>;
}

/** See {@link FakeQueue}. */
export function fakeQueue(): FakeQueue {
  const sent: FakeQueue['sent'] = [];
  return { sent, enqueue: async (message, options) => void sent.push({ message, ...options }) };
}

/** Counts every metric the worker emits, by name. */
export function fakeMetrics(): DeliveryMetrics & { counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  const bump = (name: string) => void (counts[name] = (counts[name] ?? 0) + 1);
  return {
    counts,
    attempt: ({ ok }) => bump(ok ? 'attemptOk' : 'attemptFailed'),
    retryScheduled: (channel) => bump(`retry:${channel}`),
    exhausted: () => bump('exhausted'),
    autoDisabled: () => bump('autoDisabled'),
    dropped: () => bump('dropped'),
    recovered: (n) => void (counts.recovered = (counts.recovered ?? 0) + n),
    testEventSent: () => bump('testEventSent'),
    flush: () => undefined,
  };
}

/** A logger that keeps its lines for assertions instead of printing them. */
export function fakeLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger & {
    lines: typeof lines;
  };
}

/** Runs `act` and answers the error it threw (fails the test if it did not throw). */
export async function caught(act: () => Promise<unknown>): Promise<Error & { code?: string; headers?: Record<string, string> }> {
  try {
    await act();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}
