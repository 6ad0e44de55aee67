import type { SealedValue } from '../platform/crypto/envelope.ts';

/** A secret's current value as an environment load answers it (environment-value-store.ts reads it from the path items). */
export interface EnvironmentValue {
  id: string;
  key: string;
  version: number;
  sealed: SealedValue;
  /** `base64` for a binary value (shared/secrets/secret-record.ts). */
  encoding?: 'base64';
  /** The distinct targets of its references, when it has any (the marker an environment load resolves by). */
  references?: string[];
}
