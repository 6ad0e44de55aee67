import { createHmac, createSecretKey, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { macKeyContext, type MacKeyRoot } from './context.ts';
import type { KeyProvider } from './key-provider.ts';
import type { MacKeyStore } from '../store/mac-key-store.ts';

/**
 * The service MAC keys: 256 random bits made once per deployment (per table), stored only sealed under the
 * service's KMS key (the local keyring locally), unsealed once per container. No purpose uses a key directly: each
 * gets a key of its own derived with HKDF-SHA256 and a label, so a MAC made for one purpose is never valid for
 * another, and a purpose added later cannot weaken the existing ones.
 *
 * There are two roots, each a data key sealed under its own encryption context: `service` (the service MAC key
 * proper) and `token`, from which only token checksums derive. Operators issue API keys with the admin CLI, so they
 * must compute checksums, and the key policy lets them unseal the `token` root alone: the idempotency digests stay
 * out of their reach (with table access they would otherwise be an offline oracle for secret values again).
 */

/** The purposes, each with its root and HKDF label. */
const PURPOSES = {
  /** The checksum that ends every `sk_live_` and `st_` token (shared/access/tokens.ts). */
  tokenChecksum: { root: 'token', label: 'secrets-service/v1/token-checksum' },
  /** The fingerprint of a request kept in its idempotency record (shared/platform/http/idempotency.ts). */
  idempotencyRequest: { root: 'service', label: 'secrets-service/v1/idempotency-request' },
  /** The identifier of an idempotency record: which credential sent which key. */
  idempotencyRecord: { root: 'service', label: 'secrets-service/v1/idempotency-record' },
  /** The AWS key pair of a login's token in AWS form (shared/access/aws-session.ts): only the service derives it. */
  awsSession: { root: 'service', label: 'secrets-service/v1/aws-session-credentials' },
} as const satisfies Record<string, { root: MacKeyRoot; label: string }>;

export type MacPurpose = keyof typeof PURPOSES;

/** One keyed MAC per purpose; the keys themselves never leave this object. */
export interface ServiceMacs {
  /** HMAC-SHA256 of `data` under the purpose's key. */
  mac(purpose: MacPurpose, data: string): Buffer;
  /** Whether `candidate` equals the first `candidate.length` bytes of the MAC of `data`, compared in constant time. */
  verify(purpose: MacPurpose, data: string, candidate: Buffer): boolean;
}

/** The bytes of each root key. */
export const MAC_KEY_BYTES = 32;

/**
 * Derives the purpose keys from the unsealed roots given and zeroes the roots: from here on only the derived keys,
 * held inside the answered object, exist in memory. A purpose whose root was not given throws when asked.
 */
export function deriveServiceMacs(roots: Partial<Record<MacKeyRoot, Buffer>>): ServiceMacs {
  // Held as KeyObjects: the bytes live outside the JS heap, and an HMAC under a KeyObject skips converting a Buffer
  // key on every call (measured 2.75 µs against 12.2 per HMAC; a request checks its token with one).
  const derived = new Map<MacPurpose, KeyObject>();
  for (const [purpose, { root, label }] of Object.entries(PURPOSES) as [MacPurpose, (typeof PURPOSES)[MacPurpose]][]) {
    const key = roots[root];
    if (!key) continue;
    if (key.length !== MAC_KEY_BYTES) throw new Error('A service MAC key has the wrong length');
    const bytes = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), label, 32));
    derived.set(purpose, createSecretKey(bytes));
    bytes.fill(0);
  }
  for (const key of Object.values(roots)) key?.fill(0);
  const mac = (purpose: MacPurpose, data: string) => {
    const key = derived.get(purpose);
    if (!key) throw new Error(`The ${purpose} key is not unsealed here`);
    return createHmac('sha256', key).update(data, 'utf8').digest();
  };
  return {
    mac,
    verify(purpose, data, candidate) {
      const expected = mac(purpose, data).subarray(0, candidate.length);
      return candidate.length > 0 && timingSafeEqual(expected, candidate);
    },
  };
}

/** The MAC keys have not been made for this table: the operator has not run the admin CLI against it yet. */
export class MacKeyMissingError extends Error {
  constructor() {
    super('The service MAC key does not exist yet: run the admin CLI once against this table (see docs/operations.md)');
    this.name = 'MacKeyMissingError';
  }
}

/**
 * The functions' side: reads the sealed roots (one table read) and unseals both (two KMS Decrypts, in parallel);
 * callers hold the answer for the container's life (loadOnce). A table without them is MacKeyMissingError: the
 * functions never make them, so no function role needs to write them.
 */
export async function loadServiceMacs(store: Pick<MacKeyStore, 'getMacKey'>, keys: () => Promise<KeyProvider>): Promise<ServiceMacs> {
  const stored = await store.getMacKey();
  if (!stored) throw new MacKeyMissingError();
  const provider = await keys();
  const [service, token] = await Promise.all([
    provider.decryptDataKey(stored.service, macKeyContext('service')),
    provider.decryptDataKey(stored.token, macKeyContext('token')),
  ]);
  return deriveServiceMacs({ service, token });
}

/**
 * The operator's side (admin CLI, local stack): the token checksums of this table, with both roots made first if
 * they do not exist (fresh data keys, stored sealed with one conditional put, so two operators at once agree). Only
 * the `token` root is unsealed; a new `service` root's plaintext is zeroed at once, never used here.
 */
export async function ensureOperatorMacs(store: MacKeyStore, keys: KeyProvider): Promise<ServiceMacs> {
  const stored = await store.getMacKey();
  if (stored) return deriveServiceMacs({ token: await keys.decryptDataKey(stored.token, macKeyContext('token')) });
  const [service, token] = await Promise.all([
    keys.generateDataKey(macKeyContext('service')),
    keys.generateDataKey(macKeyContext('token')),
  ]);
  service.plaintext.fill(0);
  if (await store.createMacKey({ service: service.encrypted, token: token.encrypted }))
    return deriveServiceMacs({ token: token.plaintext });
  token.plaintext.fill(0);
  return ensureOperatorMacs(store, keys);
}
