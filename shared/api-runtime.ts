/**
 * The API functions' runtime moved into access (shared/access/api-runtime.ts, one of its entry modules). This
 * re-export stays only until the webhook groups' handlers (functions/webhooks, functions/webhook-deliveries) import it
 * from there; delete it then.
 */
export { apiRuntime } from './access/api-runtime.ts';
