/**
 * Imported first by bench/run.ts: the handlers' logger reads its level when it loads, which the bench's other
 * imports already do, so the level must be set before them (ESM runs imports in order). Without it every request
 * of the load tests wrote an INFO access line, whose cost is no part of what the bench measures.
 */
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
