import { parseValue, referenceTargets, targetOf } from '../references/reference-resolving.ts';
import type { EnvironmentRef } from './secret-guard.ts';
import type { SecretValue } from './secret-write-types.ts';

/**
 * The secrets feature's side of secret references (decisions.md v1.4, "Secret references"): what a write stores of
 * a value's references (shared/references/ parses them) and how a reveal resolves them (secret-reference-reveals.ts).
 */

/**
 * The distinct targets (by path) of a value a write is about to seal, which it stores as `references`: the marker a
 * reveal resolves by. VALIDATION_ERROR naming the field (the AWS API's `SecretString`) when a reference does not
 * parse; a binary value is never parsed. A rollback writes a value written before again: one that does not parse
 * (written before v1.4) is kept as text, with no references, rather than refused.
 */
export function referencesOf(environment: EnvironmentRef, key: string, value: SecretValue, rollback = false): string[] {
  if (value.encoding === 'base64') return [];
  const place = { projectSlug: environment.projectSlug, envSlug: environment.slug, key };
  if (!rollback) return referenceTargets(value.value, place, value.field ?? 'value');
  const parsed = parseValue(value.value);
  return parsed.ok ? [...new Set(parsed.references.map((reference) => targetOf(reference, place).path))] : [];
}
