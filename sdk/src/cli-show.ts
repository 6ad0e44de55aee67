import type { Command } from 'commander';
import type { operations } from './api.js';
import { secretId, type Context } from './cli-context.js';
import { printFields, printJson } from './cli-output.js';
import { unwrap } from './client.js';

type Secret = operations['getSecret']['responses'][200]['content']['application/json']['data'];

/** A secret's record as labelled lines: where it lives, its versions, its AWS face and its rotation. Never a value. */
function printSecret(secret: Secret): void {
  const tags = Object.entries(secret.tags).map(([name, value]) => `${name}=${value}`);
  const rotation = secret.rotation;
  printFields([
    ['key', secret.key],
    ['id', secret.id],
    ['path', secret.path],
    ['version', String(secret.currentVersion)],
    ['created', secret.createdAt],
    ['updated', secret.updatedAt],
    ['project', secret.projectId],
    ['environment', secret.environmentId],
    ['arn', secret.arn],
    ['description', secret.description ?? 'none'],
    ['tags', tags.length ? tags : 'none'],
    ['rotation', rotation ? `${rotation.enabled ? 'on' : 'off'}, ${rotation.schedule}` : 'not configured'],
  ]);
}

/** `secrets show KEY`: the record of `GET /api/v1/secrets/{secretId}` of the key in the current project and environment. */
export function registerShow(cli: Command, ctx: () => Context): void {
  cli
    .command('show')
    .description("print a secret's record: id, path, current version, times, ARN, description, tags, rotation (never its value)")
    .argument('<key>')
    .option('--json', "as JSON (the API's record)")
    .addHelpText('after', '\nExample: secrets show DATABASE_URL --json')
    .action(async (key: string, flags: { json?: boolean }) => {
      const c = ctx();
      const secret = unwrap(
        await c.client.api.GET('/api/v1/secrets/{secretId}', { params: { path: { secretId: await secretId(c, key) } } }),
      );
      if (flags.json) printJson(secret);
      else printSecret(secret);
    });
}
