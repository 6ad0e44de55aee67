import { latestVersionOf } from './secret-labels.ts';
import { auditEntry } from '../audit/index.ts';
import type { Clock } from '../platform/clock.ts';
import { secretContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { Prefetched } from '../platform/prefetch.ts';
import type { Principal } from '../platform/principal.ts';
import type { SecretStore } from './secret-store.ts';
import type { SecretMetadataStore } from './secret-metadata-store.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import { NoValueError, type SecretRecord, type StoredSecret } from './secret-record.ts';
import { derivedVersionId, versionIdOf } from './secret-names.ts';
import { resolvesReferences } from './secret-reference-marks.ts';
import { referenceReveals } from './secret-reference-loader.ts';

/**
 * The secrets service's reveals of one secret (by id, by path, by name and version for the AWS API), over the store
 * methods they use; several at once are secret-bulk-reveals.ts. Each audits before it decrypts, under the reveal limits: no value leaves without its audit entry.
 */
export interface SecretRevealDeps {
  store: Pick<SecretStore, 'getSecretHead' | 'getSecretByPath' | 'getSecretVersion' | 'recordReveal'> &
    Pick<SecretMetadataStore, 'getVersionNumberOf' | 'getSecretsByPaths'>;
  cipher: Cipher;
  clock: Clock;
  /** Reveals per minute per credential, both reveal routes together. */
  revealsPerMinute: number;
  /** Reveals per minute of the whole workspace (default 10 times `revealsPerMinute`). */
  workspaceRevealsPerMinute?: number;
}

/** What a path that can name a secret looks like: two slugs and a key (ASCII, so it always fits a sort key). */
export const SECRET_PATH = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*\/[A-Za-z0-9_.\-]+(?:\/[A-Za-z0-9_.\-]+)*$/;

/** The workspace's reveals per minute: its own setting, or 10 times a credential's. */
export const workspaceRevealLimit = (deps: { revealsPerMinute: number; workspaceRevealsPerMinute?: number | undefined }) =>
  deps.workspaceRevealsPerMinute ?? deps.revealsPerMinute * 10;

export const metadataOf = (record: SecretRecord) => ({ key: record.key, projectId: record.projectId, environmentId: record.environmentId });

export function makeSecretReveals(deps: SecretRevealDeps, guard: ReturnType<typeof makeSecretGuard>) {
  const { store, cipher, clock } = deps;
  const { readable, permit } = guard;
  const workspaceLimit = () => workspaceRevealLimit(deps);
  const references = referenceReveals({ store, cipher, guard });

  /**
   * The sealed value of version `version`, its encoding and when it was written: the head's own, or its version
   * item; NOT_FOUND for none (NoValueError for a secret created without a value).
   */
  async function sealedAt(workspaceId: string, head: StoredSecret, version: number, prefetched?: Prefetched) {
    if (version === head.currentVersion) {
      if (!head.sealed) throw new NoValueError(`secret ${head.id} has no value yet`);
      return { sealed: head.sealed, createdAt: head.updatedAt, encoding: head.encoding, versionId: versionIdOf(head, version) };
    }
    // Versions above the current one are those written without AWSCURRENT (a reserved one has no item until filled).
    const stored = version <= latestVersionOf(head) ? await store.getSecretVersion(workspaceId, head.id, version, prefetched) : undefined;
    if (!stored) throw new NotFoundError(`secret ${head.id} has no version ${version}`);
    const versionId = stored.versionId ?? derivedVersionId(head.id, version);
    return { sealed: stored.sealed, createdAt: stored.createdAt, encoding: stored.encoding, versionId };
  }

  /**
   * Audits first (with the rate limit), then decrypts; no value leaves without its audit entry. Answers the value
   * with its version, when that version was written, and the secret it is of (the AWS API names them all). A current
   * value marked as holding references is resolved unless `raw` (decisions.md v1.4): its own value is opened first,
   * then the targets, and one store call audits it and each target revealed (`via`) before the value is answered;
   * an unresolvable one is 409 with `details`, nothing answered and no target audited.
   */
  async function reveal(
    principal: Principal,
    head: StoredSecret,
    version: number | undefined,
    prefetched?: Prefetched,
    named?: string,
    raw = false,
  ) {
    await permit(principal, 'reveal', head);
    const ws = principal.workspaceId;
    const wanted = version ?? head.currentVersion;
    const { sealed, createdAt, encoding, versionId } = await sealedAt(ws, head, wanted, prefetched);
    // A VersionId names its version only (decisions.md v1.4): the derived id of a version that has a token of its own
    // names nothing, which only the version's item can tell once it has lost its labels.
    if (named !== undefined && named !== versionId) throw new NotFoundError(`secret ${head.id} has no such version`);
    const { sealed: _sealed, ...secret } = head;
    const context = secretContext(ws, head.id, wanted);
    const resolved = resolvesReferences(head, wanted, raw)
      ? await references.resolve(principal, secret, await cipher.decrypt(sealed, context))
      : undefined;
    const now = clock.now();
    const audit = auditEntry(principal, 'secret.reveal', head.id, { ...metadataOf(head), version: wanted }, now);
    const via = (resolved?.revealed ?? []).map((target) =>
      auditEntry(
        principal,
        'secret.reveal',
        target.secret.id,
        { ...metadataOf(target.secret), version: target.secret.currentVersion, via: target.via },
        now,
      ),
    );
    await store.recordReveal(
      ws,
      { ...audit, packed: via },
      {
        credentialId: principal.credentialId,
        perMinute: deps.revealsPerMinute,
        workspacePerMinute: workspaceLimit(),
        now,
      },
    );
    const value = resolved ? resolved.value : await cipher.decrypt(sealed, context);
    return { key: head.key, version: wanted, value, ...(encoding && { encoding }), versionCreatedAt: createdAt, secret };
  }

  /** The head at `path` if the caller may read it; NOT_FOUND (as for a secret that does not exist) otherwise. */
  async function readableAt(principal: Principal, path: string, prefetched?: Prefetched) {
    const found = SECRET_PATH.test(path) ? await store.getSecretByPath(principal.workspaceId, path, prefetched) : undefined;
    return readable(principal, found, path, `no secret at path ${JSON.stringify(path)}`);
  }

  return {
    sealedAt,

    /** `raw` answers the text as written, its references unresolved (`?raw=true`). */
    async revealById(principal: Principal, secretId: string, version: number | undefined, prefetched?: Prefetched, raw = false) {
      const head = await readable(principal, await store.getSecretHead(principal.workspaceId, secretId, prefetched), secretId);
      return reveal(principal, head, version, prefetched, undefined, raw);
    },

    /** `path` is `<projectSlug>/<envSlug>/<key>`; a path that cannot name a secret is simply not found. */
    async revealByPath(principal: Principal, path: string, version: number | undefined, prefetched?: Prefetched, raw = false) {
      const head = await readableAt(principal, path, prefetched);
      return { id: head.id, ...(await reveal(principal, head, version, prefetched, undefined, raw)) };
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
      /** The VersionId the caller named, if any: the version selected must have it, checked before anything is audited. */
      named?: string,
    ) {
      const head = await readableAt(principal, path, prefetched);
      const version = await select(head, (versionId) => store.getVersionNumberOf(principal.workspaceId, head.id, versionId));
      if (version === undefined) throw new NotFoundError(`secret ${JSON.stringify(path)} has no such version`);
      return { id: head.id, ...(await reveal(principal, head, version, prefetched, named)) };
    },
  };
}
