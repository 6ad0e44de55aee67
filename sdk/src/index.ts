/**
 * `@secrets-service/sdk`: the client of the secrets service. Light on purpose (a Lambda imports it at cold start):
 * no CLI code and no dependency but openapi-fetch.
 */
export { createClient, unwrap, type ClientOptions, type SecretsClient } from './client.js';
export { ApiError, WebhookVerificationError } from './errors.js';
export { verifyWebhook, type WebhookEvent } from './webhooks.js';
export type { components, paths, webhooks } from './api.js';
