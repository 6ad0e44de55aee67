import { secretContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { ForbiddenError, NotFoundError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import {
  pathOf,
  type ReadTargets,
  type ReferenceProblem,
  type ReferringValue,
  type Revealed,
  type TargetRead,
  UnresolvedReferencesError,
} from '../references/index.ts';
import { resolveReference, resolveReferences } from '../references/reference-resolving.ts';
import type { EnvironmentValue } from './environment-value-items.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import type { SecretMetadataStore } from './secret-metadata-store.ts';
import type { SecretRecord, StoredSecret } from './secret-record.ts';
import { markedValue, type RevealedRecord } from './secret-reference-marks.ts';

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

/** The problems of several values as one 409's `details`, each reference and reason once. */
function mergedProblems(problems: readonly ReferenceProblem[]): ReferenceProblem[] {
  const seen = new Map(problems.map((problem) => [`${problem.reason}\u0000${problem.reference}`, problem]));
  return [...seen.values()];
}

/**
 * The resolver's side of the secrets service, which reveals build on first use (`referenceReveals`): a chunk of its
 * own with the parser and the resolver, so a cold start, and every reveal of a value without references, reads none
 * of it.
 */
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

    /**
     * Several values resolved together (an environment page, an AWS batch): each level one BatchGetItem for all of
     * them, `known` (a page's own values) read at no cost. Answers each root's resolution; one root's failure is its own.
     */
    resolveAll(
      principal: Principal,
      roots: readonly ReferringValue<RevealedRecord>[],
      known?: ReadonlyMap<string, TargetRead<RevealedRecord>>,
    ) {
      return resolveReferences<RevealedRecord>(roots, readTargets(principal), known ? { known } : {});
    },

    /**
     * A page's values with their references resolved, together: one resolution for every marked value, the page's own
     * values known (a target in the page costs no read); each level of the others one BatchGetItem. Any value that
     * cannot be resolved refuses the page (409, every failing value's problems merged): no value is answered.
     */
    async resolvePage(
      principal: Principal,
      environment: { id: string; projectId: string; projectSlug: string; slug: string },
      items: readonly EnvironmentValue[],
      texts: readonly string[],
    ) {
      const placeOf = (item: EnvironmentValue) => ({ projectSlug: environment.projectSlug, envSlug: environment.slug, key: item.key });
      const recordOf = (item: EnvironmentValue): RevealedRecord => {
        const { id, key, version } = item;
        return { id, key, projectId: environment.projectId, environmentId: environment.id, currentVersion: version };
      };
      const known = new Map(
        items.map((item, i): [string, TargetRead<RevealedRecord>] => [
          pathOf(placeOf(item)),
          item.encoding === 'base64' ? { status: 'not_found' } : { status: 'value', secret: recordOf(item), text: texts[i]! },
        ]),
      );
      const roots = items.flatMap((item, i) => (markedValue(item) ? [i] : []));
      const resolutions = await resolveReferences<RevealedRecord>(
        roots.map((i) => ({ secret: recordOf(items[i]!), place: placeOf(items[i]!), text: texts[i]! })),
        readTargets(principal),
        { known },
      );
      const problems = resolutions.flatMap((resolution) => (resolution.ok ? [] : resolution.problems));
      if (problems.length > 0) throw new UnresolvedReferencesError(mergedProblems(problems));
      const values = [...texts];
      const revealed: Revealed<RevealedRecord>[][] = items.map(() => []);
      roots.forEach((i, j) => {
        const resolution = resolutions[j]!;
        if (!resolution.ok) return;
        values[i] = resolution.value;
        revealed[i] = resolution.revealed;
      });
      return { values, revealed };
    },
  };
}
