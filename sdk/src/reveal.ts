import type createFetchClient from 'openapi-fetch';
import type { components, paths } from './api.js';
import { unwrap } from './errors.js';

type Api = ReturnType<typeof createFetchClient<paths>>;

/** Which value a reveal answers. */
export interface RevealOptions {
  /** A past version: its text as written (references are resolved only in the current value). */
  version?: number;
  /**
   * The current value as written, its references (`${KEY}`, `${env.KEY}`, `${project.env.KEY}`) left unresolved
   * (`?raw=true`); without it they are resolved, and one that cannot be is a 409 `ApiError` whose `details` name it.
   */
  raw?: boolean;
}

/** `?raw=true` only when asked: the API's default (resolved) is what a reveal without options means. */
const rawQuery = (options: RevealOptions) => (options.raw ? { raw: 'true' as const } : {});

/**
 * The single reveals over `api`: by secret id (`POST /api/v1/secrets/{secretId}/reveal`) and by path
 * (`POST /api/v1/reveal`, `<projectSlug>/<envSlug>/<key>`). Each is audited by the API as a `secret.reveal`.
 */
export function revealHelpers(api: Api) {
  return {
    /** A secret's value by id: the current one resolved, a past `version`, or the current one `raw`. */
    async reveal(secretId: string, options: RevealOptions = {}): Promise<components['schemas']['RevealResult']> {
      const version = options.version === undefined ? {} : { version: String(options.version) };
      return unwrap(
        await api.POST('/api/v1/secrets/{secretId}/reveal', {
          params: { path: { secretId }, query: { ...version, ...rawQuery(options) } },
        }),
      );
    },

    /** A secret's value by path (`payments-api/production/DATABASE_URL`), with the options of `reveal`. */
    async revealByPath(path: string, options: RevealOptions = {}): Promise<components['schemas']['RevealByPathResult']> {
      const version = options.version === undefined ? {} : { version: options.version };
      return unwrap(await api.POST('/api/v1/reveal', { params: { query: rawQuery(options) }, body: { path, ...version } }));
    },
  };
}
