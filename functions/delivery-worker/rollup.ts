/*
 * The statistics rollup and its store, in a module of their own that the handler imports with the first rollup
 * message: one chunk split point, so a cold start does without them (lib/lambda-bundle.ts). Imported from their
 * files: a cold start reaches shared/webhooks/pipeline.ts, which may not carry them (shared/webhooks/index.ts says why).
 */
export { makeStatsRollup } from '../../shared/webhooks/stats/stats-rollup.ts';
export { makeStatsRollupStore } from '../../shared/webhooks/stats/stats-rollup-store.ts';
