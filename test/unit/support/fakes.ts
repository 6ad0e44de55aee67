import type { Logger } from '@aws-lambda-powertools/logger';
import type { Principal } from '../../../shared/auth/principal.ts';
import type { Cipher, SealedValue } from '../../../shared/crypto/envelope.ts';

/** A clock the test moves by hand. */
export function fakeClock(start = Date.parse('2026-06-01T00:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms), set: (ms: number) => void (now = ms) };
}

/** A cipher that seals by tagging the plaintext with its context (no KMS), and counts its calls. */
export function fakeCipher() {
  const calls = { encrypt: 0, decrypt: 0 };
  const cipher: Cipher = {
    async encrypt(plaintext, context) {
      calls.encrypt++;
      return { ciphertext: Buffer.from(plaintext).toString('base64'), iv: '', tag: JSON.stringify(context), encryptedDataKey: '' };
    },
    async decrypt(sealed: SealedValue, context) {
      calls.decrypt++;
      if (sealed.tag !== JSON.stringify(context)) throw new Error('context mismatch');
      return Buffer.from(sealed.ciphertext, 'base64').toString();
    },
  };
  return { cipher, calls };
}

/** A logger that drops everything. */
export const silentLog = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

export const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';

/** An API-key principal of the test workspace. */
export const principal: Principal = { workspaceId: WS, accountId: 'acc_01JABCDEFGHJKMNPQRSTVWXYZ0', kind: 'api_key', actorSub: 'key_1', credentialId: 'key_1' };
