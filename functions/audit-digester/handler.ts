import { digestMakerOf, type DigestRun } from '../../shared/audit-digests/index.ts';
import { logger } from '../../shared/platform/logger.ts';
import { DIGEST_RUN_FAILED_LOG } from '../../shared/platform/metrics-env.ts';
import { runtime } from '../../shared/platform/runtime.ts';

const { db, pager, clock } = runtime();
const maker = digestMakerOf({ db, pager, env: process.env });

/**
 * Lambda entry of the audit digester, run on a schedule (hourly on AWS, a sixth of the period locally): makes the
 * signed, chained digest of every workspace's periods due since its last one (shared/audit-digests/digest-maker.ts).
 */
export const handler = async (): Promise<DigestRun> => {
  const run = await maker.run(clock.now());
  // Each failed workspace was logged with its id already; the count makes the run's line the one an alarm reads.
  if (run.failed > 0) logger.error(DIGEST_RUN_FAILED_LOG, { ...run });
  else if (run.digests > 0) logger.info('audit digester made digests', { ...run });
  return run;
};
