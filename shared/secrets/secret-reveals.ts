import { auditEntry } from '../audit/index.ts';
import type { Clock } from '../platform/clock.ts';
import { secretContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { Prefetched } from '../platform/prefetch.ts';
import type { Principal } from '../platform/principal.ts';
import type { PageRequest } from '../platform/store/query.ts';
import type { Store } from '../store.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import type { SecretRecord, StoredSecret } from './secret-record.ts';

/**
 * The secrets service's reveals (by id, by path, an environment's values a page at a time), over the store methods
 * they use. Each audits before it decrypts, under the reveal limits: no value leaves without its audit entry.
 */
export interface SecretRevealDeps {
  store: Pick<
    Store,
    | 'getEnvironment'
    | 'getSecretHead'
    | 'getSecretByPath'
    | 'getSecretVersion'
    | 'getVersionNumberOf'
    | 'getSecretsByPaths'
    | 'recordReveal'
    | 'indexEnvironmentValues'
    | 'listEnvironmentValues'
    | 'countRevealPage'
    | 'writeAuditEntries'
  >;
  cipher: Cipher;
  clock: Clock;
  /** Reveals per minute per credential, both reveal routes together. */
  revealsPerMinute: number;
  /** Reveals per minute of the whole workspace (default 10 times `revealsPerMinute`). */
  workspaceRevealsPerMinute?: number;
}

/** What a path that can name a secret looks like: two slugs and a key (ASCII, so it always fits a sort key). */
export const SECRET_PATH = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*\/[A-Za-z0-9_.\-]+(?:\/[A-Za-z0-9_.\-]+)*$/;

/** A bulk-reveal page ends before its values pass this many bytes, so an answer always fits Lambda's 6 MB. */
export const BULK_PAGE_VALUE_BYTES = 4 * 1024 * 1024;

export const metadataOf = (record: SecretRecord) => ({ key: record.key, projectId: record.projectId, environmentId: record.environmentId });

/** How many of a page's values (their byte sizes, in order) fit under the 4 MiB cut; at least one. */
function pageCut(sizes: readonly number[]): number {
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i]!;
    if (total > BULK_PAGE_VALUE_BYTES) return Math.max(1, i);
  }
  return sizes.length;
}

export function makeSecretReveals(deps: SecretRevealDeps, guard: ReturnType<typeof makeSecretGuard>) {
  const { store, cipher, clock } = deps;
  const { readable, permit, permitAnywhere } = guard;
  const workspaceLimit = () => deps.workspaceRevealsPerMinute ?? deps.revealsPerMinute * 10;

  /** The sealed value of version `version` of the secret: the head's own, or its version item; NOT_FOUND for none. */
  /** The sealed value of version `version` and when it was written: the head's own, or its version item; NOT_FOUND for none. */
  async function sealedAt(workspaceId: string, head: StoredSecret, version: number, prefetched?: Prefetched) {
    if (version === head.currentVersion) return { sealed: head.sealed, createdAt: head.updatedAt };
    const stored = version < head.currentVersion ? await store.getSecretVersion(workspaceId, head.id, version, prefetched) : undefined;
    if (!stored) throw new NotFoundError(`secret ${head.id} has no version ${version}`);
    return { sealed: stored.sealed, createdAt: stored.createdAt };
  }

  /**
   * Audits first (with the rate limit), then decrypts; no value leaves without its audit entry. Answers the value
   * with its version, when that version was written, and the secret it is of (the AWS API names them all).
   */
  async function reveal(principal: Principal, head: StoredSecret, version: number | undefined, prefetched?: Prefetched) {
    await permit(principal, 'reveal', head);
    const ws = principal.workspaceId;
    const wanted = version ?? head.currentVersion;
    const { sealed, createdAt } = await sealedAt(ws, head, wanted, prefetched);
    const now = clock.now();
    const audit = auditEntry(principal, 'secret.reveal', head.id, { ...metadataOf(head), version: wanted }, now);
    await store.recordReveal(ws, audit, {
      credentialId: principal.credentialId,
      perMinute: deps.revealsPerMinute,
      workspacePerMinute: workspaceLimit(),
      now,
    });
    const value = await cipher.decrypt(sealed, secretContext(ws, head.id, wanted));
    const { sealed: _sealed, ...secret } = head;
    return { key: head.key, version: wanted, value, versionCreatedAt: createdAt, secret };
  }

  /** The head at `path` if the caller may read it; NOT_FOUND (as for a secret that does not exist) otherwise. */
  async function readableAt(principal: Principal, path: string, prefetched?: Prefetched) {
    const found = SECRET_PATH.test(path) ? await store.getSecretByPath(principal.workspaceId, path, prefetched) : undefined;
    return readable(principal, found, path, `no secret at path ${JSON.stringify(path)}`);
  }

  /**
   * Reveals the current versions of several secrets (the AWS API's BatchGetSecretValue), each wanted as the first of
   * its candidate paths whose secret the caller may read and `accepts`: one BatchGetItem of every candidate, each
   * decided by the policy as a reveal by path is (NOT_FOUND; FORBIDDEN, audited), one count against the reveal limits
   * for the batch, the audit entries written together before any value is opened. Answers each wanted one's value
   * or its error, in order; a refused batch (the rate limit, an audit that cannot be written) throws.
   */
  async function revealBatch(
    principal: Principal,
    wanted: readonly { paths: readonly string[]; accepts: (secret: SecretRecord) => boolean }[],
  ) {
    const ws = principal.workspaceId;
    const paths = [...new Set(wanted.flatMap((one) => one.paths.filter((path) => SECRET_PATH.test(path))))];
    const found = paths.length === 0 ? new Map<string, StoredSecret | undefined>() : await store.getSecretsByPaths(ws, paths);
    const decided = await Promise.all(
      wanted.map(async (one) => {
        try {
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
          return { head };
        } catch (error) {
          return { error };
        }
      }),
    );
    const heads = decided.flatMap((one) => (one.head ? [one.head] : []));
    if (heads.length > 0) {
      const now = clock.now();
      const limit = { credentialId: principal.credentialId, perMinute: deps.revealsPerMinute, workspacePerMinute: workspaceLimit(), now };
      await store.countRevealPage(ws, limit);
      await store.writeAuditEntries(
        ws,
        heads.map((head) =>
          auditEntry(principal, 'secret.reveal', head.id, { ...metadataOf(head), version: head.currentVersion, bulk: true }, now),
        ),
      );
    }
    return Promise.all(
      decided.map(async (one) => {
        if (!one.head) return { error: one.error };
        const { sealed, ...secret } = one.head;
        const value = await cipher.decrypt(sealed, secretContext(ws, secret.id, secret.currentVersion));
        return { value, version: secret.currentVersion, versionCreatedAt: secret.updatedAt, secret };
      }),
    );
  }

  return {
    sealedAt,
    revealBatch,

    /**
     * Loads an environment: its current values a page at a time (by key, A→Z; only `keys` when given). One Query
     * reads the page; the page counts once against the reveal limits; its audit entries (one `secret.reveal` per
     * secret, `bulk: true`) are durable before any value is decrypted; then one KMS request per data key the
     * container has not cached. A page ends early before its values pass 4 MiB, its cursor continuing there.
     */
    async revealEnvironment(
      principal: Principal,
      environmentId: string,
      input: { keys?: string[] | undefined },
      page: PageRequest,
      prefetched?: Prefetched,
    ) {
      const ws = principal.workspaceId;
      // FORBIDDEN when no rule could allow `reveal` of any key here, rather than an empty page.
      const environment = await permitAnywhere(
        principal,
        'reveal',
        await store.getEnvironment(ws, environmentId, prefetched),
        environmentId,
      );
      const { policy } = principal.authority;
      if (!environment.valuesIndexed) await store.indexEnvironmentValues(ws, environmentId);
      // Only what the caller may reveal; the rest is left out, as if it did not exist.
      const mayReveal = policy.revealsEverything
        ? undefined
        : (key: string) => policy.allows('reveal', { project: environment.projectSlug, environment: environment.slug, key });
      const result = await store.listEnvironmentValues(ws, environmentId, page, input.keys, mayReveal);
      const cut = pageCut(result.items.map((item) => Buffer.byteLength(item.sealed.ciphertext, 'base64')));
      const items = result.items.slice(0, cut);
      const nextCursor = cut < result.items.length ? await result.cursorAfter(cut - 1) : result.nextCursor;
      if (items.length === 0) return { items: [], nextCursor, hasMore: nextCursor !== null };
      const now = clock.now();
      await store.countRevealPage(ws, {
        credentialId: principal.credentialId,
        perMinute: deps.revealsPerMinute,
        workspacePerMinute: workspaceLimit(),
        now,
      });
      const metadata = { projectId: environment.projectId, environmentId, bulk: true };
      await store.writeAuditEntries(
        ws,
        items.map((item) => auditEntry(principal, 'secret.reveal', item.id, { key: item.key, version: item.version, ...metadata }, now)),
      );
      const values = await Promise.all(items.map((item) => cipher.decrypt(item.sealed, secretContext(ws, item.id, item.version))));
      return {
        items: items.map((item, i) => ({ id: item.id, key: item.key, version: item.version, value: values[i]! })),
        nextCursor,
        hasMore: nextCursor !== null,
      };
    },

    async revealById(principal: Principal, secretId: string, version: number | undefined, prefetched?: Prefetched) {
      const head = await readable(principal, await store.getSecretHead(principal.workspaceId, secretId, prefetched), secretId);
      return reveal(principal, head, version, prefetched);
    },

    /** `path` is `<projectSlug>/<envSlug>/<key>`; a path that cannot name a secret is simply not found. */
    async revealByPath(principal: Principal, path: string, version: number | undefined, prefetched?: Prefetched) {
      const head = await readableAt(principal, path, prefetched);
      return { id: head.id, ...(await reveal(principal, head, version, prefetched)) };
    },

    /**
     * The secret at `path` as the caller may read it (NOT_FOUND otherwise), never its value: what the AWS API's
     * DescribeSecret and a reveal by name check before anything is revealed.
     */
    async readByPath(principal: Principal, path: string, prefetched?: Prefetched) {
      const { sealed: _sealed, ...secret } = await readableAt(principal, path, prefetched);
      return secret;
    },

    /**
     * Reveals the secret at `path` at the version `select` chooses once the secret is known (the AWS API's
     * GetSecretValue: a VersionId or staging label names a version only of its own secret); `select` answering
     * undefined is NOT_FOUND, and nothing is revealed or audited.
     */
    async revealSelected(
      principal: Principal,
      path: string,
      select: (secret: SecretRecord, versionOfId: (versionId: string) => Promise<number | undefined>) => Promise<number | undefined>,
      prefetched?: Prefetched,
    ) {
      const head = await readableAt(principal, path, prefetched);
      const version = await select(head, (versionId) => store.getVersionNumberOf(principal.workspaceId, head.id, versionId));
      if (version === undefined) throw new NotFoundError(`secret ${JSON.stringify(path)} has no such version`);
      return { id: head.id, ...(await reveal(principal, head, version, prefetched)) };
    },
  };
}
