import { AuthRequiredError, ForbiddenError, WorkspaceNotAllowlistedError } from '../platform/errors.ts';
import type { Clock } from '../platform/clock.ts';
import type { Authenticated, RequestOrigin } from '../platform/http/authentication.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import type { Prefetched } from '../platform/prefetch.ts';
import type { Principal } from '../platform/principal.ts';
import type { TokenItem, WorkspaceItem, WorkspaceStore } from '../workspaces/index.ts';
import { API_KEY_AUTHORITY, machineAuthority } from './permissions.ts';

/**
 * The step every credential that is a token item passes once it is known to be the caller's, whatever proved it: a
 * bearer token's form and checksum (authenticate.ts) or a SigV4 signature (sigv4-credentials.ts).
 */

export interface AdmissionDeps {
  store: Pick<WorkspaceStore, 'touchCredential'>;
  clock: Clock;
  /** Told when recording a key's `lastUsedAt` failed (the request itself goes on). */
  onTouchFailure?: ((error: unknown) => void) | undefined;
}

/** The source-address check, loaded by the first token that has allowedCidrs (most have none: no bytes at cold start). */
const sourceAddresses = loadOnce(() => import('./source-address.ts'));

/** `lastUsedAt` is written at most once per key and this many milliseconds, not on every request. */
export const LAST_USED_GRANULARITY_MS = 60_000;

/** A credential's token item as authentication read it, with its workspace and the route's items. */
export interface CredentialRead {
  tokenHash: string;
  record: TokenItem;
  workspace: WorkspaceItem | undefined;
  prefetched: Prefetched;
}

/**
 * What every credential that is a token item passes once it is known to be the caller's (a bearer token's form and
 * checksum, or a SigV4 signature): its revocation, expiry, login key state, networks and workspace, then its
 * principal, with `lastUsedAt` recorded at most once a minute.
 */
export async function admitCredential(
  deps: AdmissionDeps,
  { tokenHash, record, workspace, prefetched }: CredentialRead,
  origin: RequestOrigin,
): Promise<Authenticated> {
  const { workspaceId } = record;
  if (record.revokedAt) throw new AuthRequiredError('Authorization: the token has been revoked');
  if (record.expiresAt && Date.parse(record.expiresAt) <= deps.clock.now()) {
    throw new AuthRequiredError('Authorization: the token has expired');
  }
  // A login's token: its key revoked or changed since (the workspace item, read with the token, says so at once,
  // whether or not the change has reached this token item yet).
  if (record.keyRevision !== undefined) checkLoginKey(record.keyRevision, workspace?.loginKeys?.[record.credentialId]);
  // Outside the key's networks: refused before it counts as use (no lastUsedAt, no rate-limit count).
  if (
    record.allowedCidrs &&
    record.allowedCidrs.length > 0 &&
    !(await sourceAddresses()).fromAllowedAddress(origin.sourceIp, record.allowedCidrs)
  ) {
    throw new ForbiddenError('Authorization: this access key may not be used from this address (allowedCidrs)');
  }
  if (!workspace?.allowlisted) throw new WorkspaceNotAllowlistedError();
  const authority =
    record.kind === 'machine' ? machineAuthority(record.rules ?? undefined, record.rulesId ?? undefined) : API_KEY_AUTHORITY;
  const principal: Principal = {
    workspaceId,
    accountId: workspace.accountId,
    kind: record.kind,
    actorSub: record.actorSub,
    credentialId: record.credentialId,
    authority,
    reviewedEnvironments: workspace.reviewedEnvironments,
  };
  const now = deps.clock.now();
  const due = !record.lastUsedAt || now - Date.parse(record.lastUsedAt) >= LAST_USED_GRANULARITY_MS;
  if (!due) return { principal, prefetched };
  const pending = deps.store
    .touchCredential(record, tokenHash, new Date(now).toISOString(), new Date(now - LAST_USED_GRANULARITY_MS).toISOString())
    .catch((error: unknown) => deps.onTouchFailure?.(error));
  return { principal, prefetched, pending };
}

/**
 * A login token against its key's state on the workspace item: below 0, the key is revoked; above the token's
 * revision, the key's permissions or networks changed after the login and have not reached this token (the token
 * items are updated after the key): refused, and the workload logs in again for a token with the key as it is now.
 */
export function checkLoginKey(tokenRevision: number, keyState: number | undefined): void {
  if (keyState === undefined) return;
  if (keyState < 0) throw new AuthRequiredError('Authorization: the token has been revoked');
  if (keyState > tokenRevision)
    throw new AuthRequiredError('Authorization: the access key changed after this token was issued; log in again');
}
