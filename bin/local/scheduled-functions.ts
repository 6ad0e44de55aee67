import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { digestPeriodSeconds } from '../../shared/audit-digests/index.ts';
import { LOCAL_DIGEST_KEY_FILE } from '../../shared/platform/crypto/local-keyring.ts';
import { AUDIT_DIGESTER_FUNCTION, SECRET_PURGER_FUNCTION } from '../../shared/platform/functions.ts';

/**
 * Runs a scheduled function's handler as its EventBridge rate rule does on AWS: every `intervalMinutes`, and once at
 * start, for anything a restart left behind. A failed run is dropped, as the deployed rule's is after its retries:
 * the next run finds the same work.
 */
export function runEvery(handler: () => Promise<unknown>, intervalMinutes: number, stops: (() => Promise<void>)[]): void {
  runEveryMs(handler, intervalMinutes * 60_000, stops);
}

/** `runEvery` with the interval in milliseconds, for a schedule shorter than a minute (the local digester's). */
function runEveryMs(handler: () => Promise<unknown>, intervalMs: number, stops: (() => Promise<void>)[]): void {
  const run = () => void handler().catch(() => undefined);
  const timer = setInterval(run, intervalMs);
  run();
  stops.push(async () => clearInterval(timer));
}

/** The secret purger (functions/secret-purger) on its deployed schedule, from its real handler module. */
export async function startSecretPurger(projectRoot: string, stops: (() => Promise<void>)[]): Promise<void> {
  const entry = pathToFileURL(join(projectRoot, SECRET_PURGER_FUNCTION.entry)).href;
  const { handler } = (await import(entry)) as { handler: () => Promise<unknown> };
  runEvery(handler, SECRET_PURGER_FUNCTION.intervalMinutes, stops);
}

/**
 * The audit digester (functions/audit-digester) every sixth of a digest period (10 minutes for the hour, 10 seconds
 * for a 60-second period): a digest is due a third of a period after its end, so it is made at most a sixth of a
 * period late, and a shortened period in a test is digested within its due time and a half.
 */
export async function startAuditDigester(projectRoot: string, localDir: string, stops: (() => Promise<void>)[]): Promise<void> {
  // The stand-ins decisions.md names, set before the handler reads its settings: the keyring's own P-256 key, and
  // the folder that refuses to overwrite a file.
  process.env.AUDIT_LOCAL_SIGNING_KEY_FILE = join(localDir, LOCAL_DIGEST_KEY_FILE);
  process.env.AUDIT_LOCAL_BUCKET_DIR = join(localDir, 'audit-bucket');
  const entry = pathToFileURL(join(projectRoot, AUDIT_DIGESTER_FUNCTION.entry)).href;
  const { handler } = (await import(entry)) as { handler: () => Promise<unknown> };
  runEveryMs(handler, (digestPeriodSeconds(process.env.AUDIT_DIGEST_PERIOD_SECONDS) * 1000) / 6, stops);
}

/** The local stack's scheduled functions, each on its schedule: the secret purger and the audit digester. */
export async function startScheduledFunctions(projectRoot: string, localDir: string, stops: (() => Promise<void>)[]): Promise<void> {
  await startSecretPurger(projectRoot, stops);
  await startAuditDigester(projectRoot, localDir, stops);
}
