import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { DigestedEntry } from '../../../shared/audit-digests/digest-canonical.ts';

/** A fresh P-256 key pair as the local signer takes it (PEM) and as a test signs with it (KeyObject). */
export function p256(): { privateKeyPem: string; publicKeyPem: string; privateKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** An entry as the API answers it, numbered so that ids sort by `n`, made at `createdAt`. */
export function entry(n: number, createdAt: string, overrides: Partial<DigestedEntry> = {}): DigestedEntry {
  return {
    id: `aud_${String(n).padStart(26, '0')}`,
    action: 'secret.reveal',
    actorSub: 'ak_1',
    target: `sec_${n}`,
    metadata: { key: `K${n}`, credentialKind: 'api_key' },
    createdAt,
    ...overrides,
  };
}
