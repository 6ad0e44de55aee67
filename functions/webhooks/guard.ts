/*
 * The SSRF guard and the sender it shares a module with, in a module of their own that the handler imports on the
 * first url check: one chunk split point, so that code waits in its own chunk (lib/lambda-bundle.ts). Imported from
 * its file: a cold start reaches shared/webhooks/index.ts, which says why that may not carry it.
 */
export { guardedHttpFromConfig } from '../../shared/webhooks/deliveries/guarded-http.ts';
