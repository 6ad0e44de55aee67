import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SECRET_PURGER_FUNCTION } from '../../shared/platform/functions.ts';

/**
 * Runs a scheduled function's handler as its EventBridge rate rule does on AWS: every `intervalMinutes`, and once at
 * start, for anything a restart left behind. A failed run is dropped, as the deployed rule's is after its retries:
 * the next run finds the same work.
 */
export function runEvery(handler: () => Promise<unknown>, intervalMinutes: number, stops: (() => Promise<void>)[]): void {
  const run = () => void handler().catch(() => undefined);
  const timer = setInterval(run, intervalMinutes * 60_000);
  run();
  stops.push(async () => clearInterval(timer));
}

/** The secret purger (functions/secret-purger) on its deployed schedule, from its real handler module. */
export async function startSecretPurger(projectRoot: string, stops: (() => Promise<void>)[]): Promise<void> {
  const entry = pathToFileURL(join(projectRoot, SECRET_PURGER_FUNCTION.entry)).href;
  const { handler } = (await import(entry)) as { handler: () => Promise<unknown> };
  runEvery(handler, SECRET_PURGER_FUNCTION.intervalMinutes, stops);
}
