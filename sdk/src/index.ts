/**
 * `@secrets-service/sdk`: the client of the secrets service. Light on purpose (a Lambda imports it at cold start):
 * no CLI code and no dependency but openapi-fetch. An AWS IAM login loads the AWS signer and credential chain with
 * `import()` on its first use, never at import; the middy middleware is its own entry (`@secrets-service/sdk/middy`).
 */
export {
  createClient,
  unwrap,
  type AuthOptions,
  type AwsIamAuth,
  type ClientOptions,
  type OidcAuth,
  type RevealOptions,
  type SecretsClient,
} from './client.js';
export { ApiError, WebhookVerificationError } from './errors.js';
export { verifyWebhook, type WebhookEvent } from './webhooks.js';
export type { components, paths, webhooks } from './api.js';
