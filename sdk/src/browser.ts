/**
 * `@secrets-service/sdk/client`: the typed client alone, with no Node built-in anywhere on its path (an IAM login,
 * which needs Node, loads its code with `import()` only when one is asked for), for browsers: the web console.
 */
export { createClient, unwrap, type ClientOptions, type RevealOptions, type SecretsClient } from './client.js';
export { ApiError } from './errors.js';
export type { components, paths } from './api.js';
