import type { Command } from 'commander';
import { registerAccessKeys } from './cli-access-keys.js';
import { connectionOptions, resolveApi, resolveProject, type Connection } from './cli-context.js';
import { printJson, printTable } from './cli-output.js';
import { registerWebhooks } from './cli-webhooks.js';
import { unwrap } from './client.js';

type ProjectContext = ReturnType<typeof resolveProject>;

/** The id of the target project, by its slug (NOT_FOUND when there is none the token may see). */
async function projectId(ctx: ProjectContext): Promise<string> {
  return unwrap(await ctx.client.api.GET('/api/v1/projects/by-slug/{projectSlug}', { params: { path: { projectSlug: ctx.project } } })).id;
}

/** `secrets projects list|create`: the workspace's projects. */
function registerProjects(cli: Command, api: () => ReturnType<typeof resolveApi>): void {
  const projects = cli
    .command('projects')
    .description("list and create the workspace's projects")
    .addHelpText('after', '\nExamples: secrets projects list\n          secrets projects create "Payments API"');

  connectionOptions(
    projects.command('list').description('list every project: id, slug, name, created').option('--json', 'as JSON (an array of projects)'),
  )
    .addHelpText('after', '\nExample: secrets projects list --json')
    .action(async (flags: { json?: boolean }) => {
      const c = api();
      const all = await Array.fromAsync(
        c.client.paginate((cursor) =>
          c.client.api.GET('/api/v1/projects', { params: { query: { limit: '200', ...(cursor ? { cursor } : {}) } } }),
        ),
      );
      if (flags.json) return printJson(all);
      printTable(
        ['ID', 'SLUG', 'NAME', 'CREATED'],
        all.map((p) => [p.id, p.slug, p.name, p.createdAt]),
        'projects',
      );
    });

  connectionOptions(
    projects
      .command('create')
      .description('create a project (its slug comes from the name) and print its id and slug; --env adds environments')
      .argument('<name>')
      .option('--env <name>', 'also create an environment of this name in it; repeatable', (value: string, all: string[] = []) => [
        ...all,
        value,
      ])
      .option('--json', 'the whole project as JSON (with --env: {project, environments})'),
  )
    .addHelpText(
      'after',
      '\nExamples: secrets projects create "Payments API"   (slug payments-api)\n          secrets projects create "Payments API" --env Staging --env Production\nNeeds an API key or an admin; a machine token is FORBIDDEN.',
    )
    .action(async (name: string, flags: { json?: boolean; env?: string[] }) => {
      const c = api();
      const project = unwrap(await c.client.api.POST('/api/v1/projects', { body: { name } }));
      // One at a time, in the order given: each environment's slug is unique within the project.
      const environments = [];
      for (const env of flags.env ?? []) {
        environments.push(
          unwrap(
            await c.client.api.POST('/api/v1/projects/{projectId}/environments', {
              params: { path: { projectId: project.id } },
              body: { name: env },
            }),
          ),
        );
      }
      if (flags.json) return printJson(flags.env ? { project, environments } : project);
      process.stdout.write(`${project.id}\t${project.slug}\n`);
      for (const environment of environments) process.stdout.write(`${environment.id}\t${project.slug}/${environment.slug}\n`);
    });
}

/** `secrets environments list|create`: the environments of the target project (`--project`, SECRETS_PROJECT, .secrets.json). */
function registerEnvironments(cli: Command, target: () => ProjectContext): void {
  const environments = cli
    .command('environments')
    .description("list and create a project's environments")
    .addHelpText(
      'after',
      '\nThe project comes from --project, SECRETS_PROJECT or .secrets.json.\n\nExamples: secrets environments list --project payments-api\n          secrets environments create Staging --project payments-api',
    );

  connectionOptions(
    environments
      .command('list')
      .description("list the project's environments: id, slug, name, created")
      .option('--json', 'as JSON (an array of environments)'),
    { project: true },
  )
    .addHelpText('after', '\nExample: secrets environments list --project payments-api')
    .action(async (flags: { json?: boolean }) => {
      const c = target();
      const id = await projectId(c);
      const all = await Array.fromAsync(
        c.client.paginate((cursor) =>
          c.client.api.GET('/api/v1/projects/{projectId}/environments', {
            params: { path: { projectId: id }, query: { limit: '200', ...(cursor ? { cursor } : {}) } },
          }),
        ),
      );
      if (flags.json) return printJson(all);
      printTable(
        ['ID', 'SLUG', 'NAME', 'CREATED'],
        all.map((e) => [e.id, e.slug, e.name, e.createdAt]),
        `environments in ${c.project}`,
      );
    });

  connectionOptions(
    environments
      .command('create')
      .description('create an environment in the project and print its id and slug')
      .argument('<name>')
      .option('--json', 'the whole environment as JSON'),
    { project: true },
  )
    .addHelpText(
      'after',
      '\nExample: secrets environments create Staging --project payments-api   (slug staging)\nNeeds an API key or an admin; a machine token is FORBIDDEN.',
    )
    .action(async (name: string, flags: { json?: boolean }) => {
      const c = target();
      const environment = unwrap(
        await c.client.api.POST('/api/v1/projects/{projectId}/environments', {
          params: { path: { projectId: await projectId(c) } },
          body: { name },
        }),
      );
      if (flags.json) return printJson(environment);
      process.stdout.write(`${environment.id}\t${environment.slug}\n`);
    });
}

/**
 * Adds the workspace commands (`projects`, `environments`, `access-keys`, `webhooks`) to the CLI; `connection` answers the
 * options of the running command and of those above it.
 */
export function registerAdmin(cli: Command, connection: () => Connection): void {
  const api = () => resolveApi(connection());
  registerProjects(cli, api);
  registerEnvironments(cli, () => resolveProject(connection()));
  registerAccessKeys(cli, api);
  registerWebhooks(cli, api);
}
