import createFetchClient from 'openapi-fetch';
import type { paths } from './api.js';
import { refuseInsecureBaseUrl } from './base-url.js';
import { ApiError, unwrap } from './errors.js';
import { loginBodies, loginTokens, postLogin, type AuthOptions, type TokenSource } from './login.js';
import { revealHelpers } from './reveal.js';

export { unwrap } from './errors.js';
export type { AuthOptions, AwsIamAuth, OidcAuth } from './login.js';
export type { RevealOptions } from './reveal.js';

interface CommonOptions {
  /**
   * The API's base URL, without `/api/v1` (the local stack's `stack.json` `baseUrl`, a stage's `ApiUrl` output):
   * `https://`, or `http://` only to a loopback host (127.0.0.0/8, `[::1]`, `localhost`); anything else is refused.
   */
  baseUrl: string;
  /** Per attempt, in milliseconds (default 10,000). */
  timeoutMs?: number;
  /**
   * Retries of a 429, a 503, a network failure, or a write's 409 that names a `Retry-After` (its Idempotency-Key's
   * first request is still running) (default 3); nothing else is retried.
   */
  maxRetries?: number;
  /** How long `loadEnvironment` answers from memory (default 300 s). */
  cacheTtlSeconds?: number;
  /** For tests and other runtimes. */
  fetch?: typeof fetch;
  now?: () => number;
}

/** `token` for a credential you hold, or `auth` to log in with a workload identity (never both). */
export type ClientOptions = CommonOptions &
  (
    | {
        /** An API key (`sk_live_…`), a machine token (`st_…`) or a user's access token (a JWT). */
        token: string;
        auth?: never;
      }
    | {
        /**
         * Log in at `POST /api/v1/auth/login` with an access key whose `auth` is `aws_iam` or `oidc`, on first use,
         * again before the token expires and once after a 401 (the call is then sent again once).
         */
        auth: AuthOptions;
        token?: never;
      }
  );

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A `Retry-After` longer than this is not waited out: the answer (429 or 503) is given to the caller. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * A fetch that retries only what is safe to retry: 429 (after `Retry-After`), 503 and network failures, with
 * exponential backoff and full jitter. Every write carries an `Idempotency-Key` that stays the same across its
 * retries, so a retried write that had in fact succeeded is answered from the first, never done twice (a reveal is
 * a read and is simply sent again). A retry that reaches the server while the first attempt still runs there (it
 * timed out on our side) is answered 409 with `Retry-After` (the seconds left of its lease): asked again at growing
 * intervals up to that bound, it gets the first one's answer. A 409 without `Retry-After` (a taken slug, a changed `If-Match`) is the caller's. The
 * caller's `signal` aborts every attempt and is never retried.
 */
function retryingFetch(options: Required<Pick<CommonOptions, 'timeoutMs' | 'maxRetries'>> & { fetch: typeof fetch }): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    // Reveals change nothing and refuse the header (a value is never replayed from storage): only writes carry it. A
    // login writes nothing a second one would spoil (it mints another short-lived token), so it goes without.
    const keyless = /\/(reveal|auth\/login)$/.test(new URL(request.url).pathname);
    if (WRITES.has(request.method) && !keyless && !request.headers.has('idempotency-key'))
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    const body = request.body ? await request.arrayBuffer() : undefined;
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined;
      let failure: unknown;
      try {
        const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
        response = await options.fetch(new Request(request, { body, signal }));
      } catch (error) {
        if (request.signal.aborted) throw error;
        failure = error;
      }
      const keyInUse = response?.status === 409 && request.headers.has('idempotency-key') && response.headers.has('retry-after');
      const retryable = failure !== undefined || response!.status === 429 || response!.status === 503 || keyInUse;
      const retryAfter = Number(response?.headers.get('retry-after')) * 1000;
      if (!retryable || attempt >= options.maxRetries || retryAfter > MAX_RETRY_AFTER_MS) {
        if (failure !== undefined) throw failure;
        return response!;
      }
      const wait = keyInUse
        ? keyInUseWait(retryAfter, attempt)
        : retryAfter > 0
          ? retryAfter
          : Math.random() * Math.min(8_000, 200 * 2 ** attempt);
      await response?.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
}

/**
 * How long to wait before asking again for a write whose key's first request still runs. The server's
 * `Retry-After` is what is left of that request's lease (up to 60 s): when it will have finished or be given up
 * for dead. Most first requests finish long before, so it is a bound, not a wait: 0.5 s, 1 s, 2 s, … up to it.
 */
function keyInUseWait(retryAfterMs: number, attempt: number): number {
  return Math.min(retryAfterMs, 500 * 2 ** attempt);
}

/**
 * A fetch that sends each request with the current login token and, when the API answers 401 (the token was revoked
 * or expired early), logs in again and sends the request once more; a second 401 is the caller's, so a key that is
 * refused for good costs one extra login per call, never a loop.
 */
function authenticatingFetch(tokens: TokenSource, inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? await request.arrayBuffer() : undefined;
    const send = async (): Promise<[string, Response]> => {
      const token = await tokens.token();
      const attempt = new Request(request, { body });
      attempt.headers.set('authorization', `Bearer ${token}`);
      return [token, await inner(attempt)];
    };
    const [used, first] = await send();
    if (first.status !== 401) return first;
    tokens.refused(used);
    await first.body?.cancel();
    return (await send())[1];
  };
}

/** The client's fetch and its default headers: a fixed token, or the tokens of logins (`auth`). */
function authentication(
  options: ClientOptions,
  baseUrl: string,
  retrying: typeof fetch,
  now: () => number,
): { fetch: typeof fetch; headers: Record<string, string> } {
  if (options.token !== undefined && options.auth !== undefined) throw new TypeError('give token or auth, not both');
  if (options.auth === undefined) {
    if (typeof options.token !== 'string' || options.token === '') throw new TypeError('token or auth is required');
    return { fetch: retrying, headers: { authorization: `Bearer ${options.token}` } };
  }
  const bodies = loginBodies(options.auth, baseUrl);
  const tokens = loginTokens(async () => postLogin(baseUrl, await bodies(), retrying), now);
  return { fetch: authenticatingFetch(tokens, retrying), headers: {} };
}

/** An environment as loaded: its values, and the keys whose value is binary (answered base64-encoded). */
type Loaded = { values: Record<string, string>; binary: string[] };
type CacheEntry = Loaded & { fetchedAt: number };

/**
 * A client of the API: `api` gives typed access to every route (types generated from docs/openapi.json), and
 * `loadEnvironment` answers a whole environment as `{KEY: value}` with a small in-memory cache. Throws a TypeError
 * for a base URL that would send the token in clear over the network (`http://` to a host that is not loopback), for
 * both `token` and `auth` or neither, and for an `auth` that cannot log in (no STS endpoint, an unknown method).
 */
export function createClient(options: ClientOptions) {
  // At creation, not at the first request: a token must never leave on a connection the rule refuses.
  refuseInsecureBaseUrl(options.baseUrl);
  const now = options.now ?? Date.now;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const retrying = retryingFetch({
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 3,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  });
  const api = createFetchClient<paths>({ baseUrl, ...authentication(options, baseUrl, retrying, now) });
  const cache = new Map<string, CacheEntry>();
  const ttlMs = (options.cacheTtlSeconds ?? 300) * 1000;

  /** An environment by its project's and its own slug; a found one is kept (environments are never renamed). */
  const environments = new Map<string, Promise<{ id: string; projectId: string; name: string; slug: string }>>();
  function environment(project: string, slug: string) {
    const key = `${project}/${slug}`;
    let found = environments.get(key);
    if (!found) {
      found = api
        .GET('/api/v1/projects/by-slug/{projectSlug}/environments/{envSlug}', { params: { path: { projectSlug: project, envSlug: slug } } })
        .then(unwrap);
      environments.set(key, found);
      found.catch(() => environments.delete(key));
    }
    return found;
  }

  async function* paginate<T>(
    list: (
      cursor: string | undefined,
    ) => Promise<{ data?: { data: T[]; meta: { page?: { nextCursor: string | null } } }; error?: unknown; response: Response }>,
  ): AsyncGenerator<T> {
    let cursor: string | undefined;
    do {
      const page = await list(cursor);
      yield* unwrap(page);
      cursor = page.data?.meta.page?.nextCursor ?? undefined;
    } while (cursor);
  }

  async function fetchEnvironment(project: string, slug: string, keys: string[] | undefined, raw: boolean): Promise<Loaded> {
    const { id } = await environment(project, slug);
    const values: Record<string, string> = {};
    const binary: string[] = [];
    const pages = paginate((cursor) =>
      api.POST('/api/v1/environments/{envId}/secrets/reveal', {
        params: { path: { envId: id }, query: { ...(cursor ? { cursor } : {}), ...(raw ? { raw: 'true' as const } : {}) } },
        body: keys ? { keys } : {},
      }),
    );
    for await (const secret of pages) {
      values[secret.key] = secret.value;
      if (secret.encoding === 'base64') binary.push(secret.key);
    }
    return { values, binary };
  }

  return {
    api,

    /** A single value by id or by path (`reveal`, `revealByPath`), resolved or `raw`: see `RevealOptions`. */
    ...revealHelpers(api),

    /** An environment's record (`id`, `projectId`, `name`, `slug`) by its project's and its own slug. */
    environment,

    /**
     * Every secret of an environment (or only `keys`), by its project's and its own slug, following every page.
     * Answers from memory for `cacheTtlSeconds`; `forceFetch` skips that. When a refresh fails with a network error,
     * a 429 or a 5xx, the last good answer is served (stale-if-error); never when the API answers 401, 403 or 404,
     * which also forget it. A binary value (the AWS API's SecretBinary) is its base64 text; `onBinary` is told
     * each such key. A secret without a value yet is not in the answer. Values' references are resolved; `raw`
     * answers them as written (`?raw=true`).
     */
    async loadEnvironment(target: {
      project: string;
      environment: string;
      keys?: string[];
      raw?: boolean;
      forceFetch?: boolean;
      onBinary?: (key: string) => void;
    }): Promise<Record<string, string>> {
      const raw = target.raw === true;
      const cacheKey = JSON.stringify([target.project, target.environment, target.keys ?? null, raw]);
      const answer = (loaded: Loaded) => {
        for (const key of loaded.binary) target.onBinary?.(key);
        return { ...loaded.values };
      };
      const cached = cache.get(cacheKey);
      if (cached && !target.forceFetch && now() - cached.fetchedAt < ttlMs) return answer(cached);
      try {
        const loaded = await fetchEnvironment(target.project, target.environment, target.keys, raw);
        cache.set(cacheKey, { ...loaded, fetchedAt: now() });
        return answer(loaded);
      } catch (error) {
        const status = error instanceof ApiError ? error.status : undefined;
        if (status === 401 || status === 403 || status === 404) cache.delete(cacheKey);
        const transient = status === undefined || status === 429 || status >= 500;
        if (cached && transient) return answer(cached);
        throw error;
      }
    },

    /** Every item of a list route, page after page (`meta.page.nextCursor`), as an async iterator. */
    paginate,
  };
}

export type SecretsClient = ReturnType<typeof createClient>;
