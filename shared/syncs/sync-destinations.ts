import { ValidationError } from '../platform/errors.ts';
import type { Destination } from './sync-records.ts';
import type { DestinationInput, DestinationPatch } from './sync-schemas.ts';

/**
 * A destination as a request gives it, turned into what is stored (decisions.md v1.4, "Syncs"): the token apart (the
 * service seals it), a PATCH merged onto the current destination, and the rules that span fields, each refused as
 * VALIDATION_ERROR naming the field and the rule.
 */

/** The SSRF guard's verdict on a url (the webhooks' check: https, public addresses unless the allow-list opens them). */
export type UrlCheck = (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;

/** The destination without its token, and the token (GitHub's, or none). */
export function splitToken(input: DestinationInput | DestinationPatch): { destination: Record<string, unknown>; token?: string } {
  if (input.type !== 'github-actions' || input.token === undefined) return { destination: { ...input } };
  const { token, ...destination } = input;
  return { destination, token };
}

/** Drops absent fields (and, from a PATCH, the nulls that remove one), so an optional field is absent when unset. */
function withoutEmpty(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null));
}

/** A new sync's destination, checked. */
export async function newDestination(input: DestinationInput, checkUrl: UrlCheck): Promise<{ destination: Destination; token?: string }> {
  const { destination, token } = splitToken(input);
  const checked = withoutEmpty(destination) as unknown as Destination;
  await assertDestinationRules(checked, checkUrl);
  return { destination: checked, ...(token !== undefined && { token }) };
}

/** A PATCH's destination over the current one: the type cannot change; null removes an optional field. */
export async function patchedDestination(
  current: Destination,
  patch: DestinationPatch,
  checkUrl: UrlCheck,
): Promise<{ destination: Destination; token?: string }> {
  if (patch.type !== current.type)
    throw new ValidationError(`destination.type: cannot change (${current.type}); delete the sync and create another`);
  const { destination: fields, token } = splitToken(patch);
  const merged = { ...current, ...fields };
  const next = withoutEmpty(merged) as unknown as Destination;
  const urlChanged = next.type === 'github-actions' && next.apiUrl !== (current as { apiUrl?: string }).apiUrl;
  await assertDestinationRules(next, urlChanged ? checkUrl : async () => ({ ok: true }));
  return { destination: next, ...(token !== undefined && { token }) };
}

/** The rules between fields: an external id only with a role to assume; GitHub's `apiUrl` through the SSRF guard. */
export async function assertDestinationRules(destination: Destination, checkUrl: UrlCheck): Promise<void> {
  if (destination.type !== 'github-actions') {
    if (destination.externalId !== undefined && destination.roleArn === undefined)
      throw new ValidationError('destination.externalId: needs destination.roleArn (it is passed when assuming that role)');
    return;
  }
  if (destination.apiUrl === undefined) return;
  const verdict = await checkUrl(destination.apiUrl);
  if (!verdict.ok) throw new ValidationError(`destination.apiUrl: ${verdict.reason}`);
}
