/*
 * The SSRF guard and the sender it shares a module with, in a module of their own that the handler imports on the
 * first url check: one chunk split point, so that code waits in its own chunk (lib/lambda-bundle.ts).
 */
export { guardedHttpFromConfig } from '../../shared/webhooks/on-first-use.ts';
