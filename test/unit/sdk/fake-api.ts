/**
 * A stand-in for the API as the SDK's `fetch`: it answers `POST /api/v1/auth/login` with `st_1`, `st_2`, … (or what
 * `login` answers), an environment by its slugs, and the bulk reveal, and records every request it is sent.
 */
export interface SeenRequest {
  method: string;
  path: string;
  /** The query string, with its `?` (or empty): what `?raw=true` and `?version=` travel in. */
  query: string;
  authorization: string | null;
  body: string;
}

export interface SeenLogin {
  body: Record<string, unknown> & { signedRequest?: { url: string; method: string; headers: Record<string, string>; body: string } };
  authorization: string | null;
}

export interface FakeApiOptions {
  /** The login's answer for the n-th login (from 1); default a token `st_<n>` valid for `lifeMs`. */
  login?: (n: number, body: SeenLogin['body']) => Response | Promise<Response>;
  /** Any other request's answer; default: the environment, the reveal, or an empty list. */
  api?: (request: SeenRequest, n: number) => Response | Promise<Response> | undefined;
  /** The clock the login's `expiresAt` is counted from. */
  now?: () => number;
  lifeMs?: number;
}

/** A success in the API's envelope. */
export const ok = (data: unknown, status = 200, meta: Record<string, unknown> = {}) =>
  new Response(JSON.stringify({ data, error: null, meta }), { status, headers: { 'content-type': 'application/json' } });

/** A refusal in the API's envelope, with its `error.details` when given. */
export const refusal = (status: number, code: string, message: string, details?: Record<string, unknown>[]) =>
  new Response(JSON.stringify({ data: null, error: { code, message, ...(details ? { details } : {}) }, meta: { requestId: 'req_1' } }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/** The default answers of a route that is not the login. */
function defaultAnswer(request: SeenRequest): Response {
  if (request.path.startsWith('/api/v1/projects/by-slug/'))
    return ok({ id: 'env_1', projectId: 'proj_1', name: 'Production', slug: 'production' });
  if (request.path.endsWith('/secrets/reveal'))
    return ok([{ key: 'DATABASE_URL', value: 'postgres://db' }], 200, { page: { nextCursor: null } });
  return ok([], 200, { page: { nextCursor: null } });
}

export function fakeApi(options: FakeApiOptions = {}) {
  const logins: SeenLogin[] = [];
  const requests: SeenRequest[] = [];
  const now = options.now ?? Date.now;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const { pathname: path, search: query } = new URL(request.url);
    const body = await request.text();
    if (path === '/api/v1/auth/login') {
      const parsed = JSON.parse(body) as SeenLogin['body'];
      logins.push({ body: parsed, authorization: request.headers.get('authorization') });
      const n = logins.length;
      if (options.login) return options.login(n, parsed);
      return ok({
        token: `st_${n}`,
        expiresAt: new Date(now() + (options.lifeMs ?? 900_000)).toISOString(),
        accessKeyId: parsed.accessKeyId,
        identityId: 'mid_1',
      });
    }
    const seen = { method: request.method, path, query, authorization: request.headers.get('authorization'), body };
    requests.push(seen);
    return (await options.api?.(seen, requests.length)) ?? defaultAnswer(seen);
  };
  return { fetch, logins, requests };
}

/** A promise and its resolve, to hold an answer back until the test lets it go. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}
