import type { EnvironmentValue } from './environment-value-items.ts';
import type { SecretRecord } from './secret-record.ts';
import type { SecretValue } from './secret-write-types.ts';

/**
 * What the secrets service asks of secret references before it loads any of their code (decisions.md v1.4): the
 * write-time marker a reveal resolves by and whether a value to write can hold a reference at all. The parser and the
 * resolver are a chunk of their own (secret-reference-loader.ts), read by the first write of a value with `${` and the
 * first reveal of a marked value, never by a cold start.
 */

/** What a revealed target's audit entry names of it: a secret's record, or an environment page's own value. */
export type RevealedRecord = Pick<SecretRecord, 'id' | 'key' | 'projectId' | 'environmentId' | 'currentVersion'>;

/** Whether a reveal of `version` resolves: the current value, not asked raw, and marked at write time as holding references. */
export const resolvesReferences = (head: SecretRecord, version: number, raw: boolean) =>
  !raw && version === head.currentVersion && (head.references?.length ?? 0) > 0;

/** Whether a page's value holds references (the write-time marker; a binary value never does). */
export const markedValue = (item: EnvironmentValue) => (item.references?.length ?? 0) > 0 && item.encoding !== 'base64';

/** Whether a value to write may hold a reference (or the `$${` escape): text with `${`. Any other has none to parse. */
export const mayReference = (value: SecretValue) => value.encoding !== 'base64' && value.value.includes('${');
