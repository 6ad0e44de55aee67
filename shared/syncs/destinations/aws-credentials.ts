import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { globMatcher } from '../../platform/glob.ts';
import { parseAllowedCidrs } from '../../net/ssrf.ts';
import { DestinationError } from './destination.ts';
import type { DestinationContext } from './destination.ts';
import { awsFailure } from './aws-failure.ts';
import { guardedAwsHandler } from './guarded-aws-handler.ts';

/**
 * Where and as whom the AWS destinations of a sync write (decisions.md v1.4, "Syncs"): with `roleArn`, as the role
 * (STS AssumeRole, only roles the stack's `syncRoleArns` patterns allow); without, as the sync function itself, only
 * when `syncOwnAccount` lets it. Locally one endpoint serves SSM, Secrets Manager and STS, signed with static keys.
 * Every client sends through the SSRF guard (guarded-aws-handler.ts).
 */

/** The part of an AWS destination's configuration that says where and as whom. */
export interface AwsPlace {
  region: string;
  roleArn?: string | undefined;
  externalId?: string | undefined;
}

/** What an AWS SDK client of a sync is made with. */
export interface AwsClientConfig {
  region: string;
  endpoint?: string;
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  requestHandler: ReturnType<typeof guardedAwsHandler>;
  /** The SDK's standard retry: throttling (Parameter Store's low TPS) and 5xx are retried with backoff. */
  maxAttempts: number;
}

const MAX_ATTEMPTS = 5;
/** Assumed credentials live 15 minutes (AWS's minimum): a push is short, and a leaked set dies soon. */
const ROLE_SECONDS = 900;
/** Clients kept per container: one per (kind, region, endpoint, identity); the oldest goes past this many. */
const CACHE_LIMIT = 64;
const clients = new Map<string, unknown>();

/** Refuses a role the stack does not let syncs assume: `roleArn` must match one of `syncRoleArns` (the glob). */
export function checkRoleArn(roleArn: string, patterns: readonly string[]): void {
  // The glob's `*` stops at `/`: `role/sync-*` does not match a role under a path (`role/team/sync-x`); `**` does.
  if (!globMatcher(patterns)(roleArn)) {
    throw new DestinationError(`roleArn ${roleArn} is not one this stack lets syncs assume (syncRoleArns)`);
  }
}

/** Refuses to write into the stack's own account unless `syncOwnAccount` allows it (locally: the local endpoint). */
export function checkOwnAccount(context: Pick<DestinationContext, 'ownAccount'>): void {
  if (!context.ownAccount) {
    throw new DestinationError("a destination without roleArn writes into the service's own account, which syncOwnAccount does not allow");
  }
}

/**
 * One client of `kind` for this place and identity, made once per container (`make` gets its configuration). The
 * role and own-account checks run on every call, before the cache, so a cached client never skips them.
 */
export function awsClient<T>(kind: string, make: (config: AwsClientConfig) => T, place: AwsPlace, context: DestinationContext): T {
  if (place.roleArn !== undefined) checkRoleArn(place.roleArn, context.roleArns);
  else checkOwnAccount(context);
  const session = `secrets-sync-${context.syncId || context.workspaceId}`.slice(0, 64);
  const identity = place.roleArn === undefined ? 'own' : `role ${place.roleArn} ${place.externalId ?? ''} ${session}`;
  const id = [
    kind,
    place.region,
    context.awsEndpoint?.url ?? '',
    context.awsEndpoint?.accessKeyId ?? '',
    identity,
    context.allowPrivateCidrs,
  ].join('|');
  const cached = clients.get(id) as T | undefined;
  if (cached !== undefined) return cached;
  const base = baseConfig(place.region, context);
  const credentials = place.roleArn === undefined ? base.credentials : assumedRole(place, session, context);
  const client = make({ ...base, ...(credentials !== undefined && { credentials }) });
  if (clients.size >= CACHE_LIMIT) clients.delete(clients.keys().next().value as string);
  clients.set(id, client);
  return client;
}

/** The function's own configuration: its region, and locally the endpoint and its static keys. */
function baseConfig(region: string, context: DestinationContext): AwsClientConfig {
  const endpoint = context.awsEndpoint;
  const requestHandler = guardedAwsHandler(parseAllowedCidrs(context.allowPrivateCidrs));
  return {
    region,
    requestHandler,
    maxAttempts: MAX_ATTEMPTS,
    ...(endpoint !== undefined && {
      endpoint: endpoint.url,
      credentials: { accessKeyId: endpoint.accessKeyId, secretAccessKey: endpoint.secretAccessKey },
    }),
  };
}

/**
 * The role's credentials, asked of STS (as the function, or locally with the endpoint's keys) when the client first
 * signs and again when they near their end: the SDK memoizes a provider that answers an `expiration`.
 */
function assumedRole(place: AwsPlace, session: string, context: DestinationContext): AwsCredentialIdentityProvider {
  // STS is asked as the function itself (or locally with the endpoint's keys): asking writes nothing into its account.
  const sts = awsClient('sts', (config) => new STSClient(config), { region: place.region }, { ...context, ownAccount: true });
  const input = {
    RoleArn: place.roleArn,
    RoleSessionName: session,
    DurationSeconds: ROLE_SECONDS,
    ...(place.externalId !== undefined && { ExternalId: place.externalId }),
  };
  return async () => {
    const answer = await sts.send(new AssumeRoleCommand(input)).catch((error: unknown) => {
      throw awsFailure(`STS AssumeRole ${place.roleArn}`, error);
    });
    const credentials = answer.Credentials;
    if (credentials?.AccessKeyId === undefined || credentials.SecretAccessKey === undefined) {
      throw new DestinationError(`STS AssumeRole ${place.roleArn}: no credentials in the answer`);
    }
    return {
      accessKeyId: credentials.AccessKeyId,
      secretAccessKey: credentials.SecretAccessKey,
      ...(credentials.SessionToken !== undefined && { sessionToken: credentials.SessionToken }),
      ...(credentials.Expiration !== undefined && { expiration: credentials.Expiration }),
    };
  };
}
