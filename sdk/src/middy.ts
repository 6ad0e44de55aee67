/**
 * `@secrets-service/sdk/middy`: a middy middleware that loads an environment before the handler, as
 * `@middy/secrets-manager` loads secrets (its option names where they mean the same: `cacheExpiry`, `setToContext`).
 * @middy/core is an optional peer: this module names its types only and loads nothing of it.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import { createClient, type SecretsClient } from './client.js';

export interface SecretsServiceOptions {
  /** The project's slug. */
  project: string;
  /** The environment's slug. */
  environment: string;
  /** A client of your own; without it one is made from `SECRETS_API_URL` with `SECRETS_ACCESS_KEY_ID` (AWS IAM) or `SECRETS_TOKEN`. */
  client?: SecretsClient;
  /** How long (ms) the environment is reused across invocations: -1 or Infinity forever, 0 never (default 300,000). */
  cacheExpiry?: number;
  /** Put the environment in `context.secrets` (default true); it is always in `request.internal.secrets`. */
  setToContext?: boolean;
}

type LambdaContext = Request['context'];

/** A Lambda context with the environment's secrets, `{KEY: value}`. */
export type SecretsContext = LambdaContext & { secrets: Record<string, string> };

/** What the middleware leaves in `request.internal`. */
export type SecretsInternal = { secrets: Record<string, string> };

/**
 * A client from the environment variables: `SECRETS_API_URL` with `SECRETS_ACCESS_KEY_ID` (an AWS IAM login; its
 * server id from `SECRETS_SERVER_ID` when set) or `SECRETS_TOKEN`. Throws a TypeError naming what is missing.
 */
export function clientFromEnv(env: NodeJS.ProcessEnv = process.env): SecretsClient {
  const baseUrl = env.SECRETS_API_URL;
  if (!baseUrl) throw new TypeError('secretsService: SECRETS_API_URL is required (or pass a client)');
  const accessKeyId = env.SECRETS_ACCESS_KEY_ID || undefined;
  const token = env.SECRETS_TOKEN || undefined;
  if (accessKeyId && token) throw new TypeError('secretsService: set SECRETS_ACCESS_KEY_ID or SECRETS_TOKEN, not both');
  if (accessKeyId)
    return createClient({
      baseUrl,
      auth: { accessKeyId, method: 'aws_iam', ...(env.SECRETS_SERVER_ID ? { serverId: env.SECRETS_SERVER_ID } : {}) },
    });
  if (token) return createClient({ baseUrl, token });
  throw new TypeError('secretsService: SECRETS_ACCESS_KEY_ID or SECRETS_TOKEN is required (or pass a client)');
}

/**
 * A middy middleware that loads the environment before the handler into `context.secrets` (`{KEY: value}`), reuses
 * it across invocations until `cacheExpiry` ms have passed since it was loaded, and fails the invocation (throws the
 * client's error) when it cannot be loaded; a failed load is not kept, so the next invocation tries again.
 */
export function secretsService<const TOptions extends SecretsServiceOptions>(
  options: TOptions,
): MiddlewareObj<unknown, any, Error, TOptions extends { setToContext: false } ? LambdaContext : SecretsContext, SecretsInternal> {
  const { project, environment } = options;
  const cacheExpiry = options.cacheExpiry ?? 300_000;
  const setToContext = options.setToContext ?? true;
  const forever = cacheExpiry < 0 || cacheExpiry === Infinity;
  let client = options.client;
  let loaded: { values: Promise<Record<string, string>>; at: number } | undefined;

  const load = (): Promise<Record<string, string>> => {
    const now = Date.now();
    if (loaded && (forever || now - loaded.at < cacheExpiry)) return loaded.values;
    client ??= clientFromEnv();
    // forceFetch: this middleware's cacheExpiry decides, not the client's own cache.
    const values = client.loadEnvironment({ project, environment, forceFetch: true });
    const entry = { values, at: now };
    loaded = entry;
    values.catch(() => {
      if (loaded === entry) loaded = undefined;
    });
    return values;
  };

  return {
    before: async (request) => {
      const secrets = { ...(await load()) };
      request.internal.secrets = secrets;
      if (setToContext) Object.assign(request.context, { secrets });
    },
  };
}
