import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import type { PurgeRun } from '../../shared/secrets/index.ts';
import { purgeServiceOf } from '../../shared/secrets/purge-wiring.ts';

const { db, clock } = runtime();
const purger = purgeServiceOf({ db, clock });

/**
 * Lambda entry of the secret purger, run every 5 minutes: purges deleted secrets whose recovery window has ended,
 * and purges a crash interrupted (shared/secrets/purge-service.ts).
 */
export const handler = async (): Promise<PurgeRun> => {
  const run = await purger.purgeDue();
  // A purge is a recovery window that ended: expected work, worth a line but no warning.
  if (run.purged > 0) logger.info('purger purged deleted secrets', { purged: run.purged });
  return run;
};
