import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { macKeyContext } from './context.ts';
import type { KeyProvider } from './key-provider.ts';
import type { MacKeyStore } from '../store/mac-key.ts';

/**
 * The service MAC key: 256 random bits made once per deployment (per table), stored only sealed under the
 * service's KMS key (the local keyring locally), unsealed once per container. No purpose uses it directly: each
 * gets a key of its own derived with HKDF-SHA256 and a label, so a MAC made for one purpose is never valid for
 * another, and a purpose added later cannot weaken the existing ones.
 */

/** The purposes the service MAC key serves, each with its HKDF label. */
const PURPOSES = {
  /** The checksum that ends every `sk_live_` and `st_` token (shared/auth/tokens.ts). */
  tokenChecksum: 'secrets-service/v1/token-checksum',
  /** The fingerprint of a request kept in its idempotency record (shared/http/idempotency.ts). */
  idempotencyRequest: 'secrets-service/v1/idempotency-request',
  /** The identifier of an idempotency record: which credential sent which key. */
  idempotencyRecord: 'secrets-service/v1/idempotency-record',
} as const;

export type MacPurpose = keyof typeof PURPOSES;

/** One keyed MAC per purpose; the keys themselves never leave this object. */
export interface ServiceMacs {
  /** HMAC-SHA256 of `data` under the purpose's key. */
  mac(purpose: MacPurpose, data: string): Buffer;
  /** Whether `candidate` equals the first `candidate.length` bytes of the MAC of `data`, compared in constant time. */
  verify(purpose: MacPurpose, data: string, candidate: Buffer): boolean;
}

/** The bytes of the service MAC key. */
export const MAC_KEY_BYTES = 32;

/**
 * Derives the purpose keys from the unsealed service MAC key and zeroes it: from here on only the derived keys,
 * held inside the answered object, exist in memory.
 */
export function deriveServiceMacs(macKey: Buffer): ServiceMacs {
  if (macKey.length !== MAC_KEY_BYTES) throw new Error('The service MAC key has the wrong length');
  const derived = new Map<MacPurpose, Buffer>();
  for (const [purpose, label] of Object.entries(PURPOSES) as [MacPurpose, string][]) {
    derived.set(purpose, Buffer.from(hkdfSync('sha256', macKey, Buffer.alloc(0), label, 32)));
  }
  macKey.fill(0);
  const mac = (purpose: MacPurpose, data: string) => createHmac('sha256', derived.get(purpose)!).update(data, 'utf8').digest();
  return {
    mac,
    verify(purpose, data, candidate) {
      const expected = mac(purpose, data).subarray(0, candidate.length);
      return candidate.length > 0 && timingSafeEqual(expected, candidate);
    },
  };
}

/** The MAC key has not been made for this table: the operator has not run the admin CLI against it yet. */
export class MacKeyMissingError extends Error {
  constructor() {
    super('The service MAC key does not exist yet: run the admin CLI once against this table (see docs/operations.md)');
    this.name = 'MacKeyMissingError';
  }
}

/**
 * Reads and unseals the service MAC key (one table read and one KMS Decrypt); a function's callers hold the
 * answer for the container's life (loadOnce). A table without the key is MacKeyMissingError: the functions never
 * make it, so no function role needs to write it.
 */
export async function loadServiceMacs(store: Pick<MacKeyStore, 'getMacKey'>, keys: () => Promise<KeyProvider>): Promise<ServiceMacs> {
  const stored = await store.getMacKey();
  if (!stored) throw new MacKeyMissingError();
  return deriveServiceMacs(await (await keys()).decryptDataKey(stored.sealed, macKeyContext()));
}

/**
 * The operator's side: the service MAC key of this table, made first if it does not exist (a fresh data key from
 * the key provider, stored sealed with a conditional put, so two operators at once agree on one key).
 */
export async function ensureServiceMacs(store: MacKeyStore, keys: KeyProvider): Promise<ServiceMacs> {
  const stored = await store.getMacKey();
  if (stored) return deriveServiceMacs(await keys.decryptDataKey(stored.sealed, macKeyContext()));
  const fresh = await keys.generateDataKey(macKeyContext());
  if (await store.createMacKey(fresh.encrypted)) return deriveServiceMacs(fresh.plaintext);
  fresh.plaintext.fill(0);
  return loadServiceMacs(store, async () => keys);
}
