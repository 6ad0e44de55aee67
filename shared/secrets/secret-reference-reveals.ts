import { secretContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { ForbiddenError, NotFoundError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import { type ReadTargets, resolveReference, type TargetRead } from '../references/index.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import type { SecretMetadataStore } from './secret-metadata-store.ts';
import type { SecretRecord, StoredSecret } from './secret-record.ts';

/**
 * How a reveal resolves the references of a current value (decisions.md v1.4, "Secret references";
 * docs/references-wiring.md §2): the resolver (shared/references/) over a port that reads one level's targets by path
 * in one BatchGetItem and asks the caller's policy of each, as a reveal of it would. The caller audits what it revealed.
 */
export interface ReferenceRevealDeps {
  store: Pick<SecretMetadataStore, 'getSecretsByPaths'>;
  cipher: Cipher;
  guard: Pick<ReturnType<typeof makeSecretGuard>, 'readable' | 'permit'>;
}

/** Whether a reveal of `version` resolves: the current value, not asked raw, and marked at write time as holding references. */
export const resolvesReferences = (head: SecretRecord, version: number, raw: boolean) =>
  !raw && version === head.currentVersion && (head.references?.length ?? 0) > 0;

export function makeReferenceReveals({ store, cipher, guard }: ReferenceRevealDeps) {
  /**
   * One target as the resolver needs it: not found when it does not exist, the caller may not read it, or it has no
   * text value (none yet, or a binary one); forbidden when it may read but not reveal it (audited `access.denied` by
   * the guard, as a reveal's refusal is); otherwise its current value, opened under its own context.
   */
  async function readTarget(principal: Principal, head: StoredSecret | undefined, path: string): Promise<TargetRead<SecretRecord>> {
    if (!head) return { status: 'not_found' };
    try {
      await guard.readable(principal, head, path);
      await guard.permit(principal, 'reveal', head);
    } catch (error) {
      if (error instanceof ForbiddenError) return { status: 'forbidden' };
      if (error instanceof NotFoundError) return { status: 'not_found' };
      throw error;
    }
    if (!head.sealed || head.encoding === 'base64') return { status: 'not_found' };
    const text = await cipher.decrypt(head.sealed, secretContext(principal.workspaceId, head.id, head.currentVersion));
    const { sealed: _sealed, ...secret } = head;
    return { status: 'value', secret, text };
  }

  /** The port for one caller: a level's targets in one BatchGetItem (eventually consistent, as reveals read), decided each. */
  const readTargets =
    (principal: Principal): ReadTargets<SecretRecord> =>
    async (targets) => {
      const heads = await store.getSecretsByPaths(
        principal.workspaceId,
        targets.map((target) => target.path),
      );
      const reads = await Promise.all(
        targets.map(async (target) => [target.path, await readTarget(principal, heads.get(target.path), target.path)] as const),
      );
      return new Map(reads);
    };

  return {
    /**
     * The resolved value of `secret`'s current text and the targets it revealed (each with `via`), for the caller's
     * permissions; 409 CONFLICT with `details` (UnresolvedReferencesError) and no value when any cannot be resolved.
     */
    resolve(principal: Principal, secret: SecretRecord, text: string) {
      const place = { projectSlug: secret.projectSlug, envSlug: secret.envSlug, key: secret.key };
      return resolveReference({ secret, place, text }, readTargets(principal));
    },
  };
}
