import { InvalidArgumentError, Option, type Command } from 'commander';
import { propose } from './cli-change-requests.js';
import { environmentId, secretId, type Context } from './cli-context.js';
import { printJson, printTable } from './cli-output.js';
import { unwrap } from './client.js';
import { ApiError } from './errors.js';

/** 0, or 7 to 30 days, for --recovery-window-days (decisions.md, "Recoverable deletes"). */
function windowDays(text: string): number {
  if (!/^\d{1,2}$/.test(text) || !(Number(text) === 0 || (Number(text) >= 7 && Number(text) <= 30))) {
    throw new InvalidArgumentError('expected 0 or a whole number of days from 7 to 30');
  }
  return Number(text);
}

/** Every deleted, still restorable secret of the environment, newest deletion first. */
async function deletedSecrets(c: Context, envId: string) {
  return Array.fromAsync(
    c.client.paginate((cursor) =>
      c.client.api.GET('/api/v1/environments/{envId}/secrets/deleted', {
        params: { path: { envId }, query: { limit: '200', ...(cursor ? { cursor } : {}) } },
      }),
    ),
  );
}

/** `secrets delete KEY`, `secrets deleted` and `secrets restore KEY`: deletes within a recovery window, and their way back. */
export function registerDeleted(cli: Command, ctx: () => Context): void {
  cli
    .command('delete')
    .description('delete a secret: gone at once, restorable for 7 days (or --recovery-window-days N, or --force)')
    .argument('<key>')
    .option('--recovery-window-days <n>', 'how long it stays restorable: 7 to 30 days (default 7), or 0', windowDays)
    .addOption(
      new Option('--force', 'purge it and every version at once, with no way back (same as --recovery-window-days 0)').conflicts(
        'recoveryWindowDays',
      ),
    )
    .addOption(
      // A merged delete keeps the service's default window (7 days): a proposal names no window of its own.
      new Option('--propose <title>', 'delete nothing: open a change request titled TITLE that deletes it, for review').conflicts([
        'recoveryWindowDays',
        'force',
      ]),
    )
    .addHelpText(
      'after',
      [
        '\nExamples: secrets delete OLD_API_KEY',
        '          secrets delete OLD_API_KEY --recovery-window-days 30',
        '          secrets delete LEAKED_TOKEN --force',
        '          secrets delete OLD_API_KEY --propose "Drop the old key"   (merged, it is restorable for 7 days)',
      ].join('\n'),
    )
    .action(async (key: string, flags: { recoveryWindowDays?: number; force?: boolean; propose?: string }) => {
      const c = ctx();
      if (flags.propose !== undefined) return propose(c, flags.propose, [{ key, delete: true }]);
      const days = flags.force ? 0 : flags.recoveryWindowDays;
      const query = days === undefined ? {} : { recoveryWindowDays: String(days) };
      unwrap(await c.client.api.DELETE('/api/v1/secrets/{secretId}', { params: { path: { secretId: await secretId(c, key) }, query } }));
      process.stderr.write(
        days === 0 ? `${key}: deleted and purged\n` : `${key}: deleted; restorable for ${days ?? 7} days (secrets restore ${key})\n`,
      );
    });

  cli
    .command('deleted')
    .description("list the environment's deleted secrets that can still be restored")
    .option('--json', 'as JSON (an array)')
    .addHelpText('after', '\nExample: secrets deleted --json')
    .action(async (flags: { json?: boolean }) => {
      const c = ctx();
      const all = await deletedSecrets(c, await environmentId(c));
      if (flags.json) return printJson(all);
      printTable(
        ['KEY', 'ID', 'VERSION', 'DELETED', 'BY', 'PURGED AT'],
        all.map((s) => [s.key, s.id, String(s.currentVersion), s.deletedAt, s.deletedBy, s.purgeAt]),
        'deleted secrets',
      );
    });

  cli
    .command('restore')
    .description('restore the most recently deleted secret of a key, whole (every version)')
    .argument('<key>')
    .addHelpText('after', '\nA live secret of the same key must be deleted or renamed first.\n\nExample: secrets restore OLD_API_KEY')
    .action(async (key: string) => {
      const c = ctx();
      const found = (await deletedSecrets(c, await environmentId(c))).find((s) => s.key === key);
      if (!found) throw new ApiError(404, 'NOT_FOUND', `no deleted secret ${key} in ${c.project}/${c.env} that can still be restored`);
      const restored = unwrap(await c.client.api.POST('/api/v1/secrets/{secretId}/restore', { params: { path: { secretId: found.id } } }));
      process.stderr.write(`${restored.key}: restored at version ${restored.version}\n`);
    });
}
