import type { Principal } from '../platform/principal.ts';
import { assertMayManageAccessKeys } from './refusals.ts';
import { hashToken, issueToken, tokenPrefix } from './tokens.ts';
import type { ServiceMacs } from '../platform/crypto/mac-key.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import { DEFAULT_RULES, withDefaults, type PermissionRule, type PermissionRuleInput } from './access-policy.ts';
import { newId } from '../platform/ids.ts';
import {
  logsIn,
  tokenScope,
  type AccessKeyChanges,
  type AuthRequest,
  type AccessKeyItem,
  type LoginKeyState,
  type StoredAuth,
} from './access-key-records.ts';
import { newAwsKeyPair } from './aws-keys.ts';
import { awsKeyContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import type { EncryptionContext } from '../platform/crypto/key-provider.ts';
import { ValidationError } from '../platform/errors.ts';
import { DEFAULT_TOKEN_TTL_SECONDS } from './login-schemas.ts';
import type { AccessKeyStore } from './access-key-store.ts';
import type { LoginStore } from './login-store.ts';
import { auditEntry } from '../audit/index.ts';
import type { PageRequest } from '../platform/store/query.ts';
import type { Prefetched } from '../platform/prefetch.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';

/** Access keys, and the login tokens a revoke or a change reaches (the login store's). */
export type AccessKeyServiceStore = Pick<
  AccessKeyStore,
  'createAccessKey' | 'getAccessKey' | 'accessKeyByIdKeys' | 'listAccessKeys' | 'updateAccessKey' | 'revokeAccessKey'
> &
  Pick<LoginStore, 'reachLoginTokens' | 'expiredLoginKeyStates'>;

/** What a create or an update may say of a key's scope. */
interface ScopeInput {
  permissions?: PermissionRuleInput[] | undefined;
  allowedCidrs?: string[] | undefined;
}

/** Rules as stored and shown: each with its defaults filled in; no rules at all, the default rules. */
const rulesOf = (input: PermissionRuleInput[] | undefined): PermissionRule[] =>
  input ? input.map(withDefaults) : DEFAULT_RULES.map((rule) => ({ ...rule }));

const DAY_MS = 86_400_000;

/**
 * The record with its status, derived at read time. The route's response schema picks the fields that leave; the
 * store's own extras (a token hash read back after a lost race) never do.
 */
function withStatus<R extends AccessKeyItem>(
  record: R,
  now: number,
): R & { status: 'active' | 'revoked' | 'expired'; permissions: PermissionRule[] } {
  const status = record.revokedAt ? 'revoked' : record.expiresAt && Date.parse(record.expiresAt) <= now ? 'expired' : 'active';
  return { ...record, status, permissions: (record.permissions as PermissionRule[] | null) ?? rulesOf(undefined) };
}

/** What a create may say: the record's fields, its scope, and how its workload proves itself. */
type CreateInput = {
  name: string;
  expiresInDays?: number | undefined;
  auth?: AuthRequest | undefined;
  tokenTtlSeconds?: number | undefined;
} & ScopeInput;

/** Machine identities and their tokens, for CLIs and SDKs. */
export function makeAccessKeyService({
  store,
  clock,
  macs,
  cipher,
}: {
  store: AccessKeyServiceStore;
  clock: Clock;
  macs: () => Promise<ServiceMacs>;
  /** Seals the secret half of an AWS key pair (only keys with auth `aws_sigv4` need it). */
  cipher?: Pick<Cipher, 'encrypt'> | undefined;
}) {
  const sealAwsSecret = (secret: string, context: EncryptionContext) => {
    if (!cipher) throw new Error('an AWS key pair needs the envelope cipher');
    return cipher.encrypt(secret, context);
  };
  /**
   * A key's rules and networks, with its revision, onto every live login token of it (keys without logins have none:
   * no query), so they keep working under the key as it is now. Until a token is reached, authentication refuses it
   * (the key's state on the workspace item is ahead of the token's revision) and its workload logs in again.
   */
  const reachLoginTokens = async (ws: string, record: AccessKeyItem, revision: number, now: number) => {
    if (logsIn(record.auth)) await store.reachLoginTokens(ws, record.id, iso(now), { ...tokenScope(record), keyRevision: revision });
  };
  const revokeLoginTokens = async (ws: string, record: AccessKeyItem, revokedAt: string, now: number) => {
    if (logsIn(record.auth)) await store.reachLoginTokens(ws, record.id, iso(now), { revokedAt });
  };
  /** The state a change of a login key writes on its workspace, with the entries of long-revoked keys removed. */
  const loginState = async (ws: string, record: AccessKeyItem, value: number, now: number): Promise<LoginKeyState | undefined> =>
    !logsIn(record.auth)
      ? undefined
      : { accessKeyId: record.id, value, prune: await store.expiredLoginKeyStates(ws, Math.floor(now / 1000)) };
  return {
    /**
     * A machine identity (`mid_`) and how its workload proves itself: its one token (`st_`, 256 random bits, in this
     * answer only), or a login with AWS IAM or OIDC, whose tokens live `tokenTtlSeconds` each (no token now).
     */
    async create(principal: Principal, input: CreateInput) {
      assertMayManageAccessKeys(principal);
      const now = clock.now();
      const requested: AuthRequest = input.auth ?? { type: 'token' };
      if (!logsIn(requested) && input.tokenTtlSeconds !== undefined) {
        throw new ValidationError('tokenTtlSeconds: only a key with auth aws_iam or oidc has login tokens');
      }
      const id = newId('accessKey', now);
      const token = requested.type === 'token' ? issueToken(await macs(), 'machine', principal.workspaceId) : null;
      // An AWS key pair: the secret half leaves in this answer only and is kept sealed under the service's KMS key.
      const aws = requested.type === 'aws_sigv4' ? newAwsKeyPair() : undefined;
      const auth: StoredAuth = requested.type === 'aws_sigv4' ? { type: 'aws_sigv4', awsAccessKeyId: aws!.accessKeyId } : requested;
      const record: AccessKeyItem = {
        id,
        name: input.name,
        identityId: newId('machineIdentity', now),
        tokenPrefix: token && tokenPrefix(token),
        createdAt: iso(now),
        createdBy: principal.actorSub,
        expiresAt: input.expiresInDays === undefined ? null : iso(now + input.expiresInDays * DAY_MS),
        revokedAt: null,
        lastUsedAt: null,
        permissions: rulesOf(input.permissions),
        allowedCidrs: input.allowedCidrs ?? [],
        auth,
        tokenTtlSeconds: logsIn(auth) ? (input.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS) : null,
      };
      const { name, identityId, expiresAt, permissions, allowedCidrs, tokenTtlSeconds } = record;
      const audit = auditEntry(
        principal,
        'access_key.create',
        record.id,
        { name, identityId, expiresAt, permissions, allowedCidrs, auth, tokenTtlSeconds },
        now,
      );
      const credential = token
        ? { tokenHash: hashToken(token) }
        : aws && {
            tokenHash: hashToken(aws.accessKeyId),
            awsSecret: await sealAwsSecret(aws.secretAccessKey, awsKeyContext(principal.workspaceId, id)),
          };
      const answer = announceAnswer({ ...withStatus(record, now), token, ...(aws && { awsSecretAccessKey: aws.secretAccessKey }) });
      await store.createAccessKey(principal.workspaceId, record, credential, audit);
      return answer;
    },

    async list(principal: Principal, page: PageRequest) {
      assertMayManageAccessKeys(principal);
      const result = await store.listAccessKeys(principal.workspaceId, page);
      const now = clock.now();
      return { ...result, items: result.items.map((record) => withStatus(record, now)) };
    },

    /** What a lookup by id reads ahead with the credential. */
    prefetch: (workspaceId: string, accessKeyId: string) => store.accessKeyByIdKeys(workspaceId, accessKeyId),

    /** One key as the list shows it (never a token); NOT_FOUND for an unknown id or another workspace's key. */
    async get(principal: Principal, accessKeyId: string, prefetched?: Prefetched) {
      assertMayManageAccessKeys(principal);
      const found = await store.getAccessKey(principal.workspaceId, accessKeyId, prefetched);
      if (!found) throw new NotFoundError(`access key ${accessKeyId} was not found`);
      const { tokenHash: _hash, revision: _revision, ...record } = found;
      return withStatus(record, clock.now());
    },

    /**
     * Changes a key's name, rules or networks; its tokens' next requests see the change (the record and every token
     * item change in one transaction). Audited as `access_key.update` with the changed fields and their new values;
     * a change that changes nothing writes nothing. A revoked key is CONFLICT.
     */
    async update(principal: Principal, accessKeyId: string, input: { name?: string | undefined } & ScopeInput) {
      assertMayManageAccessKeys(principal);
      const ws = principal.workspaceId;
      const found = await store.getAccessKey(ws, accessKeyId);
      if (!found) throw new NotFoundError(`access key ${accessKeyId} was not found`);
      const { tokenHash, revision, ...record } = found;
      const now = clock.now();
      if (record.revokedAt) throw new ConflictError(`access key ${accessKeyId} is revoked and cannot be changed`);
      const wanted: AccessKeyChanges = {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.permissions !== undefined && { permissions: rulesOf(input.permissions) }),
        ...(input.allowedCidrs !== undefined && { allowedCidrs: input.allowedCidrs }),
      };
      const changes = Object.fromEntries(
        Object.entries(wanted).filter(
          ([field, value]) => JSON.stringify(value) !== JSON.stringify(record[field as keyof AccessKeyChanges]),
        ),
      ) as AccessKeyChanges;
      const updated = { ...record, ...changes };
      if (Object.keys(changes).length === 0) {
        // A retry of a change whose tokens were not all reached (the function stopped between) reaches them now.
        await reachLoginTokens(ws, updated, revision ?? 0, now);
        return withStatus(updated, now);
      }
      const scopeChanged = changes.permissions !== undefined || changes.allowedCidrs !== undefined;
      const next = scopeChanged ? (revision ?? 0) + 1 : undefined;
      const state = next === undefined ? undefined : await loginState(ws, record, next, now);
      const audit = auditEntry(principal, 'access_key.update', accessKeyId, { changed: Object.keys(changes), ...changes }, now);
      const answer = announceAnswer(withStatus(updated, now));
      if (!(await store.updateAccessKey(ws, record, tokenHash, changes, audit, { read: revision, next, loginState: state }))) {
        throw new ConflictError(`access key ${accessKeyId} was revoked or changed meanwhile; read it again`);
      }
      if (next !== undefined) await reachLoginTokens(ws, updated, next, now);
      return answer;
    },

    /** Revokes at once (the token's next request gets AUTH_REQUIRED); revoking again changes nothing. */
    async revoke(principal: Principal, accessKeyId: string) {
      assertMayManageAccessKeys(principal);
      const ws = principal.workspaceId;
      const found = await store.getAccessKey(ws, accessKeyId);
      if (!found) throw new NotFoundError(`access key ${accessKeyId} was not found`);
      const { tokenHash, revision: _revision, ...record } = found;
      const now = clock.now();
      // Revoking again changes nothing but reaches live login tokens a first revoke that stopped half-way did not.
      if (record.revokedAt) {
        await revokeLoginTokens(ws, record, record.revokedAt, now);
        return withStatus(record, now);
      }
      const audit = auditEntry(principal, 'access_key.revoke', accessKeyId, { name: record.name, identityId: record.identityId }, now);
      const answer = announceAnswer(withStatus({ ...record, revokedAt: iso(now) }, now));
      // Its tokens are refused from now on, reached or not: none can be alive once its token life has passed.
      const state = await loginState(ws, record, -(Math.ceil(now / 1000) + (record.tokenTtlSeconds ?? 0) + 60), now);
      const revoked = await store.revokeAccessKey(ws, accessKeyId, tokenHash, iso(now), audit, state);
      const current = revoked ? { ...record, revokedAt: iso(now) } : ((await store.getAccessKey(ws, accessKeyId)) ?? record);
      if (current.revokedAt) await revokeLoginTokens(ws, current, current.revokedAt, now);
      return revoked ? answer : withStatus(current, now);
    },
  };
}

export type AccessKeyService = ReturnType<typeof makeAccessKeyService>;
