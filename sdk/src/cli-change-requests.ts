import { Option, type Command } from 'commander';
import type { operations } from './api.js';
import { connectionOptions, environmentId, resolveApi, resolveConnection, type Connection, type Context } from './cli-context.js';
import { printFields, printJson, printTable } from './cli-output.js';
import { unwrap } from './client.js';

type ChangeRequest = operations['getChangeRequest']['responses'][200]['content']['application/json']['data'];
/** A proposed change as `POST /api/v1/change-requests` takes it: `{key, value}` or `{key, delete: true}`. */
export type ProposedChange = operations['openChangeRequest']['requestBody']['content']['application/json']['changes'][number];

const STATUSES = ['open', 'approved', 'rejected', 'merged', 'closed', 'expired'] as const;

/**
 * Opens a change request of `changes` in the target environment instead of writing them (`set|delete … --propose`):
 * its id alone on stdout, for scripts; on stderr what it proposes and how it gets reviewed and merged.
 */
export async function propose(c: Context, title: string, changes: ProposedChange[]): Promise<void> {
  const body = { environmentId: await environmentId(c), title, changes };
  const opened = unwrap(await c.client.api.POST('/api/v1/change-requests', { body }));
  const keys = opened.changes.map((change) => `${change.key} (${change.action})`).join(', ');
  process.stderr.write(
    [
      `secrets: change request ${opened.id} opened in ${c.project}/${c.env}: ${keys}`,
      `secrets: nothing is written until it is approved and merged: secrets change-requests show ${opened.id}`,
      `secrets: a reviewer (not you): secrets change-requests approve ${opened.id}; then: secrets change-requests merge ${opened.id}`,
      '',
    ].join('\n'),
  );
  process.stdout.write(`${opened.id}\n`);
}

const approvals = (request: ChangeRequest) => request.reviews.filter((review) => review.decision === 'approve').length;

/** A change request as labelled lines, then its changes and its reviews as tables (never a value: answers carry none). */
function printChangeRequest(request: ChangeRequest): void {
  printFields([
    ['id', request.id],
    ['title', request.title],
    ...(request.description === null ? [] : ([['description', request.description.split('\n')]] as [string, string[]][])),
    ['status', request.status],
    ['environment', request.environmentId],
    ['author', request.authorSub],
    ['created', request.createdAt],
    ['updated', request.updatedAt],
  ]);
  process.stdout.write('\n');
  // A base version of 0: the key did not exist when the change was proposed.
  printTable(
    ['KEY', 'ACTION', 'BASE VERSION'],
    request.changes.map((change) => [change.key, change.action, String(change.baseVersion)]),
    'changes',
  );
  if (request.reviews.length) process.stdout.write('\n');
  printTable(
    ['REVIEWER', 'DECISION', 'AT', 'COMMENT'],
    request.reviews.map((review) => [review.reviewerSub, review.decision, review.createdAt, review.comment ?? '']),
    'reviews',
  );
}

function registerList(group: Command, connection: () => Connection): void {
  connectionOptions(
    group
      .command('list')
      .description("list the target environment's change requests, newest first (never a value)")
      .addOption(new Option('--status <status>', 'only those with this status').choices([...STATUSES]))
      .option('--json', 'as JSON (an array of change requests)'),
    { project: true, env: true },
  )
    .addHelpText(
      'after',
      '\nExamples: secrets change-requests list --env production --status open\n          secrets change-requests list --json',
    )
    .action(async (flags: { status?: (typeof STATUSES)[number]; json?: boolean }) => {
      const c = resolveConnection(connection());
      const envId = await environmentId(c);
      const all = await Array.fromAsync(
        c.client.paginate((cursor) =>
          c.client.api.GET('/api/v1/change-requests', {
            params: {
              query: {
                environmentId: envId,
                limit: '200',
                ...(flags.status ? { status: flags.status } : {}),
                ...(cursor ? { cursor } : {}),
              },
            },
          }),
        ),
      );
      if (flags.json) return printJson(all);
      const row = (r: ChangeRequest) => [
        r.id,
        r.status,
        r.title,
        r.changes.map((change) => change.key).join(','),
        String(approvals(r)),
        r.authorSub,
        r.createdAt,
      ];
      printTable(['ID', 'STATUS', 'TITLE', 'KEYS', 'APPROVALS', 'AUTHOR', 'CREATED'], all.map(row), 'change requests');
    });
}

function registerShow(group: Command, connection: () => Connection): void {
  connectionOptions(
    group
      .command('show')
      .description('print a change request: its status, changes (key, action, base version) and reviews; never a value')
      .argument('<id>')
      .option('--reveal <key>', 'instead: print the value proposed for KEY, alone (needs reveal on the key; audited)')
      .option('--json', 'as JSON (the API record)'),
  )
    .addHelpText(
      'after',
      '\nExamples: secrets change-requests show cr_…\n          secrets change-requests show cr_… --reveal DATABASE_URL',
    )
    .action(async (id: string, flags: { reveal?: string; json?: boolean }) => {
      const c = resolveApi(connection());
      if (flags.reveal !== undefined) {
        const path = { id, key: flags.reveal };
        const revealed = unwrap(await c.client.api.POST('/api/v1/change-requests/{id}/changes/{key}/reveal', { params: { path } }));
        if (flags.json) return printJson(revealed);
        process.stdout.write(`${revealed.value}\n`);
        return;
      }
      const request = unwrap(await c.client.api.GET('/api/v1/change-requests/{id}', { params: { path: { id } } }));
      if (flags.json) return printJson(request);
      printChangeRequest(request);
    });
}

function registerReview(group: Command, connection: () => Connection, decision: 'approve' | 'reject'): void {
  const what = decision === 'approve' ? 'approve a change request (enough approvals make it approved)' : 'reject a change request';
  connectionOptions(
    group
      .command(decision)
      .description(`${what}; never by its author, nor with a machine token`)
      .argument('<id>')
      .option('--comment <text>', 'a comment kept with the review')
      .option('--json', 'the change request as it now is, as JSON'),
  )
    .addHelpText(
      'after',
      `\nExample: secrets change-requests ${decision} cr_… --comment "${decision === 'approve' ? 'Looks right' : 'Wrong key'}"`,
    )
    .action(async (id: string, flags: { comment?: string; json?: boolean }) => {
      const c = resolveApi(connection());
      const body = { decision, ...(flags.comment !== undefined && { comment: flags.comment }) };
      const reviewed = unwrap(await c.client.api.POST('/api/v1/change-requests/{id}/reviews', { params: { path: { id } }, body }));
      if (flags.json) return printJson(reviewed);
      const next = reviewed.status === 'approved' ? `; merge it: secrets change-requests merge ${id}` : '';
      process.stderr.write(`${id}: ${decision === 'approve' ? 'approved' : 'rejected'} by you; status ${reviewed.status}${next}\n`);
    });
}

function registerMergeAndClose(group: Command, connection: () => Connection): void {
  connectionOptions(
    group
      .command('merge')
      .description('write every change of an approved change request at once, or none if a key changed since it was proposed')
      .argument('<id>')
      .option('--json', 'the change request as it now is, as JSON'),
  )
    .addHelpText(
      'after',
      '\nBy its author or a reviewer. A key written since it was proposed is CONFLICT, named on stderr.\n\nExample: secrets change-requests merge cr_…',
    )
    .action(async (id: string, flags: { json?: boolean }) => {
      const c = resolveApi(connection());
      const merged = unwrap(await c.client.api.POST('/api/v1/change-requests/{id}/merge', { params: { path: { id } } }));
      if (flags.json) return printJson(merged);
      process.stderr.write(`${id}: merged (${merged.changes.map((change) => `${change.key} ${change.action}`).join(', ')})\n`);
    });

  connectionOptions(
    group
      .command('close')
      .description('close a change request without merging it (its author or an admin)')
      .argument('<id>')
      .option('--json', 'the change request as it now is, as JSON'),
  )
    .addHelpText('after', '\nExample: secrets change-requests close cr_…')
    .action(async (id: string, flags: { json?: boolean }) => {
      const c = resolveApi(connection());
      const closed = unwrap(await c.client.api.POST('/api/v1/change-requests/{id}/close', { params: { path: { id } } }));
      if (flags.json) return printJson(closed);
      process.stderr.write(`${id}: closed\n`);
    });
}

/**
 * `secrets change-requests list|show|approve|reject|merge|close` (decisions.md v1.4, "Change requests"); `set` and
 * `delete` open one with `--propose TITLE`. Only `list` names a target environment: the others take a request's id.
 */
export function registerChangeRequests(cli: Command, connection: () => Connection): void {
  const group = cli
    .command('change-requests')
    .description('review changes proposed to environments that require review: list, show, approve, reject, merge, close')
    .addHelpText(
      'after',
      [
        '\nIn an environment with a review policy a plain write is refused (REVIEW_REQUIRED): propose it instead.',
        '\nExamples: secrets set DATABASE_URL=postgres://… --propose "Move to the new database"   (prints cr_…)',
        '          secrets delete OLD_API_KEY --propose "Drop the old key"',
        '          secrets change-requests list --status open',
        '          secrets change-requests show cr_…',
        '          secrets change-requests approve cr_… --comment "Looks right"   (another identity than the author)',
        '          secrets change-requests merge cr_…',
      ].join('\n'),
    );
  registerList(group, connection);
  registerShow(group, connection);
  registerReview(group, connection, 'approve');
  registerReview(group, connection, 'reject');
  registerMergeAndClose(group, connection);
}
