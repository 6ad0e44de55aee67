import { type AuditEntry, auditEntry } from '../audit/index.ts';
import { secretContext } from '../platform/crypto/context.ts';
import type { SealedValue } from '../platform/crypto/envelope.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { Prefetched } from '../platform/prefetch.ts';
import type { Principal } from '../platform/principal.ts';
import type { PageRequest } from '../platform/store/query.ts';
import { type Revealed, UnresolvedReferencesError } from '../references/index.ts';
import type { SecretMetadataStore } from './secret-metadata-store.ts';
import type { EnvironmentValue } from './environment-value-items.ts';
import type { EnvironmentValueStore } from './environment-value-store.ts';
import type { ProjectStore } from '../workspaces/index.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import { NoValueError, type SecretRecord, type StoredSecret } from './secret-record.ts';
import { markedValue, resolvesReferences, type RevealedRecord } from './secret-reference-marks.ts';
import { referenceReveals } from './secret-reference-loader.ts';
import { metadataOf, SECRET_PATH, workspaceRevealLimit, type SecretRevealDeps } from './secret-reveals.ts';

/**
 * The secrets service's reveals of several secrets at once: an environment's values a page at a time (REST's bulk
 * reveal) and a list of secrets by name (the AWS API's BatchGetSecretValue). Each page or batch counts once against
 * the reveal limits and writes its audit entries together, before any value is opened.
 */
export interface SecretBulkRevealDeps extends Omit<SecretRevealDeps, 'store'> {
  store: Pick<SecretMetadataStore, 'getSecretsByPaths'> &
    Pick<EnvironmentValueStore, 'listEnvironmentValues' | 'countRevealPage' | 'writeAuditEntries'> &
    Pick<ProjectStore, 'getEnvironment'>;
}

/** A bulk-reveal page ends before its values pass this many bytes, so an answer always fits Lambda's 6 MB. */
export const BULK_PAGE_VALUE_BYTES = 4 * 1024 * 1024;

/** How many of a page's values (their byte sizes, in order) fit under the 4 MiB cut; at least one. */
function pageCut(sizes: readonly number[]): number {
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i]!;
    if (total > BULK_PAGE_VALUE_BYTES) return Math.max(1, i);
  }
  return sizes.length;
}

/** The byte size a page's cut counts of a value before it is opened: its sealed form. */
const sealedSize = (item: EnvironmentValue) => Buffer.byteLength(item.sealed.ciphertext, 'base64');

/** What an environment load reveals: only `keys` when given, and only keys `keep` accepts (a sync's pattern). */
export interface EnvironmentLoadInput {
  keys?: string[] | undefined;
  keep?: ((key: string) => boolean) | undefined;
}

export function makeSecretBulkReveals(deps: SecretBulkRevealDeps, guard: ReturnType<typeof makeSecretGuard>) {
  const { store, cipher, clock } = deps;
  const { readable, permit, permitAnywhere } = guard;
  const workspaceLimit = () => workspaceRevealLimit(deps);
  const references = referenceReveals({ store, cipher, guard });

  /** The audit entry of a target a resolution revealed: its own `secret.reveal`, naming the secret it was reached by. */
  const viaEntry = (principal: Principal, target: Revealed<RevealedRecord>, now: number) => {
    const { id, key, projectId, environmentId, currentVersion } = target.secret;
    return auditEntry(principal, 'secret.reveal', id, { key, projectId, environmentId, version: currentVersion, via: target.via }, now);
  };

  /** The head `one` wants: the first of its candidate paths the caller may read and it accepts, revealable, with a value. */
  async function decide(
    principal: Principal,
    found: ReadonlyMap<string, StoredSecret | undefined>,
    one: { paths: readonly string[]; accepts: (secret: SecretRecord) => boolean },
  ) {
    let head: StoredSecret | undefined;
    for (const path of one.paths) {
      const candidate = found.get(path);
      if (!candidate) continue;
      const visible = await readable(principal, candidate, path).catch((error) => {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      });
      if (visible && one.accepts(visible)) {
        head = visible;
        break;
      }
    }
    if (!head) throw new NotFoundError('no such secret');
    await permit(principal, 'reveal', head);
    if (!head.sealed) throw new NoValueError(`secret ${head.id} has no value yet`);
    return { ...head, sealed: head.sealed };
  }

  type Decided =
    | { head: StoredSecret & { sealed: SealedValue }; resolved?: { value: string; revealed: Revealed<RevealedRecord>[] } }
    | { head?: undefined; error: unknown };

  /**
   * Resolves the batch's marked values in one resolution (each level one BatchGetItem for all of them): each opened
   * first; one that cannot be resolved becomes its own error (409, InvalidRequestException for the AWS API), the
   * others keep their resolved value and the targets they revealed.
   */
  async function resolveBatch(principal: Principal, decided: Decided[]): Promise<Decided[]> {
    const roots = decided.flatMap((one) => (one.head && resolvesReferences(one.head, one.head.currentVersion, false) ? [one.head] : []));
    if (roots.length === 0) return decided;
    const ws = principal.workspaceId;
    const texts = await Promise.all(roots.map((head) => cipher.decrypt(head.sealed, secretContext(ws, head.id, head.currentVersion))));
    const resolutions = await references.resolveAll(
      principal,
      roots.map((head, i) => ({
        secret: head,
        place: { projectSlug: head.projectSlug, envSlug: head.envSlug, key: head.key },
        text: texts[i]!,
      })),
    );
    const byHead = new Map(roots.map((head, i) => [head, resolutions[i]!]));
    return decided.map((one) => {
      const resolution = one.head && byHead.get(one.head);
      if (!resolution) return one;
      if (!resolution.ok) return { error: new UnresolvedReferencesError(resolution.problems) };
      return { head: one.head!, resolved: { value: resolution.value, revealed: resolution.revealed } };
    });
  }

  /**
   * Reveals the current versions of several secrets (the AWS API's BatchGetSecretValue), each wanted as the first of
   * its candidate paths whose secret the caller may read and `accepts`: one BatchGetItem of every candidate, each
   * decided by the policy as a reveal by path is (NOT_FOUND; FORBIDDEN, audited), the references of those marked
   * resolved together (resolveBatch), one count against the reveal limits for the batch, the audit entries (each
   * target revealed its own, with `via`) written together before any value leaves. Answers each wanted one's value
   * or its error, in order; a refused batch (the rate limit, an audit that cannot be written) throws.
   */
  async function revealBatch(
    principal: Principal,
    wanted: readonly { paths: readonly string[]; accepts: (secret: SecretRecord) => boolean }[],
  ) {
    const ws = principal.workspaceId;
    const paths = [...new Set(wanted.flatMap((one) => one.paths.filter((path) => SECRET_PATH.test(path))))];
    const found = paths.length === 0 ? new Map<string, StoredSecret | undefined>() : await store.getSecretsByPaths(ws, paths);
    const decided = await resolveBatch(
      principal,
      await Promise.all(
        wanted.map((one) =>
          decide(principal, found, one).then(
            (head): Decided => ({ head }),
            (error): Decided => ({ error }),
          ),
        ),
      ),
    );
    const revealing = decided.flatMap((one) => (one.head ? [one] : []));
    if (revealing.length > 0) {
      const now = clock.now();
      const limit = { credentialId: principal.credentialId, perMinute: deps.revealsPerMinute, workspacePerMinute: workspaceLimit(), now };
      await store.countRevealPage(ws, limit);
      // Each secret's entry holds those of the targets its resolution revealed (audit-packing.ts).
      const entries = revealing.map(({ head, resolved }) => ({
        ...auditEntry(principal, 'secret.reveal', head!.id, { ...metadataOf(head!), version: head!.currentVersion, bulk: true }, now),
        packed: (resolved?.revealed ?? []).map((target) => viaEntry(principal, target, now)),
      }));
      await store.writeAuditEntries(ws, entries);
    }
    return Promise.all(
      decided.map(async (one) => {
        if (!one.head) return { error: one.error };
        const { sealed, ...secret } = one.head;
        const value = one.resolved?.value ?? (await cipher.decrypt(sealed, secretContext(ws, secret.id, secret.currentVersion)));
        const encoding = secret.encoding;
        return { value, ...(encoding && { encoding }), version: secret.currentVersion, versionCreatedAt: secret.updatedAt, secret };
      }),
    );
  }

  const openAll = (ws: string, items: readonly EnvironmentValue[]) =>
    Promise.all(items.map((item) => cipher.decrypt(item.sealed, secretContext(ws, item.id, item.version))));

  /**
   * A page with references: its values opened, resolved (resolvePage), cut again by resolved sizes (they may be far
   * longer than their sealed text), then the entries of what it answers and of each target revealed (`via`) written
   * in one call. Answers the values it keeps, in order: fewer than `items` when the cut ended the page early.
   */
  async function revealResolved(
    principal: Principal,
    environment: { id: string; projectId: string; projectSlug: string; slug: string },
    items: readonly EnvironmentValue[],
    own: (item: EnvironmentValue) => AuditEntry,
    now: number,
  ) {
    const resolved = await references.resolvePage(principal, environment, items, await openAll(principal.workspaceId, items));
    const kept = pageCut(items.map((item, i) => (markedValue(item) ? Buffer.byteLength(resolved.values[i]!) : sealedSize(item))));
    const entries = items.slice(0, kept).map((item, i) => ({
      ...own(item),
      packed: resolved.revealed[i]!.map((target) => viaEntry(principal, target, now)),
    }));
    await store.writeAuditEntries(principal.workspaceId, entries);
    return resolved.values.slice(0, kept);
  }

  /** The environment (FORBIDDEN when no rule could allow `reveal` here) and one Query of the values the caller may reveal. */
  async function listPage(
    principal: Principal,
    environmentId: string,
    input: EnvironmentLoadInput,
    page: PageRequest,
    prefetched?: Prefetched,
  ) {
    const ws = principal.workspaceId;
    // FORBIDDEN when no rule could allow `reveal` of any key here, rather than an empty page.
    const environment = await permitAnywhere(principal, 'reveal', await store.getEnvironment(ws, environmentId, prefetched), environmentId);
    const { policy } = principal.authority;
    // Only what the caller may reveal; the rest is left out, as if it did not exist.
    const mayReveal = policy.revealsEverything
      ? undefined
      : (key: string) => policy.allows('reveal', { project: environment.projectSlug, environment: environment.slug, key });
    // A caller's own filter (a sync's key pattern) leaves out keys before anything is counted, audited or opened.
    const { keep } = input;
    const kept = keep && mayReveal ? (key: string) => keep(key) && mayReveal(key) : (keep ?? mayReveal);
    return { environment, result: await store.listEnvironmentValues(ws, environment, page, input.keys, kept) };
  }

  /**
   * Loads an environment: its current values a page at a time (by key, A→Z; only `keys` when given). One Query
   * reads the page; the page counts once against the reveal limits; its audit entries (one `secret.reveal` per
   * secret, `bulk: true`) are durable before any value leaves. A page without references (or asked `raw`) audits, then opens its
   * values (one KMS request per data key the container has not cached). A page with some opens its values first,
   * resolves them (resolvePage: refused whole when one cannot be), and writes its entries with one per target
   * revealed (`via`) in the same call. A page ends early before its answered values pass 4 MiB, its cursor
   * continuing there: sealed sizes cut first, resolved ones again.
   */
  async function revealEnvironment(
    principal: Principal,
    environmentId: string,
    input: EnvironmentLoadInput,
    page: PageRequest,
    prefetched?: Prefetched,
    raw = false,
  ) {
    const ws = principal.workspaceId;
    const { environment, result } = await listPage(principal, environmentId, input, page, prefetched);
    const cut = pageCut(result.items.map(sealedSize));
    let items = result.items.slice(0, cut);
    let nextCursor = cut < result.items.length ? await result.cursorAfter(cut - 1) : result.nextCursor;
    if (items.length === 0) return { items: [], nextCursor, hasMore: nextCursor !== null };
    const now = clock.now();
    await store.countRevealPage(ws, {
      credentialId: principal.credentialId,
      perMinute: deps.revealsPerMinute,
      workspacePerMinute: workspaceLimit(),
      now,
    });
    const metadata = { projectId: environment.projectId, environmentId, bulk: true };
    const own = (item: EnvironmentValue) =>
      auditEntry(principal, 'secret.reveal', item.id, { key: item.key, version: item.version, ...metadata }, now);
    let values: string[];
    if (raw || !items.some(markedValue)) {
      await store.writeAuditEntries(ws, items.map(own));
      values = await openAll(ws, items);
    } else {
      values = await revealResolved(principal, { ...environment, id: environmentId }, items, own, now);
      if (values.length < items.length) {
        items = items.slice(0, values.length);
        nextCursor = await result.cursorAfter(values.length - 1);
      }
    }
    return {
      items: items.map((item, i) => ({
        id: item.id,
        key: item.key,
        version: item.version,
        value: values[i]!,
        ...(item.encoding && { encoding: item.encoding }),
      })),
      nextCursor,
      hasMore: nextCursor !== null,
    };
  }

  return { revealBatch, revealEnvironment };
}
