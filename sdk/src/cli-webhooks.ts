import { InvalidArgumentError, type Command } from 'commander';
import type { components, operations } from './api.js';
import { connectionOptions, type ApiContext } from './cli-context.js';
import { printFields, printJson, printTable } from './cli-output.js';
import { unwrap } from './client.js';
import { DURATION_GRAMMAR, parseDuration } from './duration.js';

type Endpoint = components['schemas']['WebhookEndpoint'];
type Stats = operations['getWebhookStats']['responses'][200]['content']['application/json']['data'];

const ISO_TIME = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/;

/**
 * An instant for --since / --until: an ISO time (`2026-05-01T12:00:00Z`) or a duration ago (`24h`, `3d`, `90m`),
 * answered as an ISO time; anything else is refused while the flags are read, before any request.
 */
export function instant(text: string, now = Date.now()): string {
  if (ISO_TIME.test(text.trim())) {
    const at = Date.parse(text.trim());
    if (!Number.isNaN(at)) return new Date(at).toISOString();
  }
  try {
    return new Date(now - parseDuration(text)).toISOString();
  } catch {
    throw new InvalidArgumentError(`expected an ISO time (2026-05-01T12:00:00Z) or a duration ago: ${DURATION_GRAMMAR}`);
  }
}

/** A whole number of hours from 0 to 48, for --expire-current-in-hours (decisions.md, "Webhook operations"). */
function hours(text: string): number {
  if (!/^\d{1,2}$/.test(text) || Number(text) > 48) throw new InvalidArgumentError('expected a whole number of hours from 0 to 48');
  return Number(text);
}

const percent = (rate: number | null) => (rate === null ? 'n/a' : `${Number((rate * 100).toFixed(1))}%`);
const ms = (value: number | null) => (value === null ? 'n/a' : `${value} ms`);

/** An endpoint's statistics, one labelled field a line (a rate or percentile with nothing to count is "n/a"). */
function printStats(endpointId: string, stats: Stats): void {
  printFields([
    ['endpoint', endpointId],
    ['since', stats.since],
    ['deliveries', String(stats.deliveries)],
    ['succeeded', String(stats.succeeded)],
    ['failed', String(stats.failed)],
    ['pending', String(stats.pending)],
    ['success rate', percent(stats.successRate)],
    ['p50 duration', ms(stats.p50DurationMs)],
    ['p95 duration', ms(stats.p95DurationMs)],
    ['last success', stats.lastSuccessAt ?? 'never'],
    ['last failure', stats.lastFailureAt ?? 'never'],
  ]);
}

function registerList(webhooks: Command, api: () => ApiContext): void {
  connectionOptions(
    webhooks
      .command('list')
      .description("list the workspace's webhook endpoints (never a signing secret)")
      .option('--json', 'as JSON (an array of records)'),
  )
    .addHelpText('after', '\nExample: secrets webhooks list --json')
    .action(async (flags: { json?: boolean }) => {
      const c = api();
      const all = await Array.fromAsync(
        c.client.paginate((cursor) =>
          c.client.api.GET('/api/v1/webhooks', { params: { query: { limit: '200', ...(cursor ? { cursor } : {}) } } }),
        ),
      );
      if (flags.json) return printJson(all);
      const row = (e: Endpoint) => [e.id, e.url, e.events.join(','), e.enabled ? 'yes' : 'no', String(e.consecutiveFailures), e.secretHint];
      printTable(['ID', 'URL', 'EVENTS', 'ENABLED', 'FAILURES', 'SECRET'], all.map(row), 'webhook endpoints');
    });
}

function registerTest(webhooks: Command, api: () => ApiContext): void {
  connectionOptions(
    webhooks
      .command('test')
      .description('send a service.ping event to one endpoint, through the normal pipeline (signed, retried, logged)')
      .argument('<endpointId>')
      .option('--json', 'the delivery record as JSON'),
  )
    .addHelpText(
      'after',
      '\nThe endpoint gets it whatever it subscribes to; a disabled endpoint is ENDPOINT_DISABLED.\n\nExample: secrets webhooks test we_01J…',
    )
    .action(async (endpointId: string, flags: { json?: boolean }) => {
      const c = api();
      const delivery = unwrap(await c.client.api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: endpointId } } }));
      if (flags.json) return printJson(delivery);
      printFields([
        ['delivery', delivery.id],
        ['event', `${delivery.eventType} ${delivery.eventId}`],
        ['status', delivery.status],
      ]);
      process.stderr.write(
        `Follow it: GET /api/v1/webhook-deliveries/${delivery.id}, its endpoint's deliveries (GET /api/v1/webhooks/${endpointId}/deliveries), or secrets webhooks stats ${endpointId}\n`,
      );
    });
}

function registerRecover(webhooks: Command, api: () => ApiContext): void {
  connectionOptions(
    webhooks
      .command('recover')
      .description("send an endpoint's failed deliveries of a span again (same delivery ids, one more attempt each)")
      .argument('<endpointId>')
      .requiredOption('--since <time>', 'from this time: ISO, or a duration ago (24h, 3d, 90m); at most 14 days ago', (text: string) =>
        instant(text),
      )
      .option('--until <time>', 'up to this time, in the same forms (default now)', (text: string) => instant(text))
      .option('--json', 'the answer as JSON ({"queued": N})'),
  )
    .addHelpText(
      'after',
      '\nThey are queued in the background; a disabled endpoint is ENDPOINT_DISABLED.\n\nExamples: secrets webhooks recover we_01J… --since 24h\n          secrets webhooks recover we_01J… --since 2026-05-01T00:00:00Z --until 2026-05-02T00:00:00Z',
    )
    .action(async (endpointId: string, flags: { since: string; until?: string; json?: boolean }) => {
      const c = api();
      const body = { since: flags.since, ...(flags.until !== undefined && { until: flags.until }) };
      const answer = unwrap(await c.client.api.POST('/api/v1/webhooks/{id}/recover', { params: { path: { id: endpointId } }, body }));
      if (flags.json) return printJson(answer);
      process.stdout.write(`queued ${answer.queued} failed ${answer.queued === 1 ? 'delivery' : 'deliveries'}\n`);
    });
}

function registerRotate(webhooks: Command, api: () => ApiContext): void {
  connectionOptions(
    webhooks
      .command('rotate-secret')
      .description('make a new signing secret for an endpoint and print it, shown only this once')
      .argument('<endpointId>')
      .option(
        '--expire-current-in-hours <n>',
        'the old secret keeps signing (beside the new one) this many hours, 0 to 48 (default 24; 0 ends it now)',
        hours,
      )
      .option('--json', 'the endpoint as JSON, the new secret included'),
  )
    .addHelpText(
      'after',
      [
        '\nThe new secret is printed alone on stdout, so it can be captured; the rest goes to stderr.',
        'Rotating again during an overlap ends the older secret at once: only two ever sign.',
        '\nExamples: NEW=$(secrets webhooks rotate-secret we_01J…)',
        '          secrets webhooks rotate-secret we_01J… --expire-current-in-hours 0   (the old secret leaked)',
      ].join('\n'),
    )
    .action(async (endpointId: string, flags: { expireCurrentInHours?: number; json?: boolean }) => {
      const c = api();
      const body = flags.expireCurrentInHours === undefined ? {} : { expireCurrentInHours: flags.expireCurrentInHours };
      const rotated = unwrap(
        await c.client.api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id: endpointId } }, body }),
      );
      if (flags.json) return printJson(rotated);
      const until = rotated.previousSecretExpiresAt;
      const old =
        until && Date.parse(until) > Date.now() ? `the old secret keeps signing until ${until}` : 'the old secret no longer signs';
      process.stderr.write(`${rotated.id}: new signing secret ${rotated.secretHint}, shown only this once; ${old}\n`);
      process.stdout.write(`${rotated.secret}\n`);
    });
}

function registerStats(webhooks: Command, api: () => ApiContext): void {
  connectionOptions(
    webhooks
      .command('stats')
      .description("an endpoint's deliveries since a time: counts by status, success rate, p50/p95 attempt durations")
      .argument('<endpointId>')
      .option('--since <time>', 'from this time: ISO, or a duration ago (24h, 3d, 90m); default 24h, at most 30 days ago', (text: string) =>
        instant(text),
      )
      .option('--json', 'as JSON'),
  )
    .addHelpText(
      'after',
      '\nDeliveries created since that time, to the millisecond.\n\nExamples: secrets webhooks stats we_01J…\n          secrets webhooks stats we_01J… --since 7d --json',
    )
    .action(async (endpointId: string, flags: { since?: string; json?: boolean }) => {
      const c = api();
      const query = flags.since === undefined ? {} : { since: flags.since };
      const stats = unwrap(await c.client.api.GET('/api/v1/webhooks/{id}/stats', { params: { path: { id: endpointId }, query } }));
      if (flags.json) return printJson(stats);
      printStats(endpointId, stats);
    });
}

/** `secrets webhooks list|test|recover|rotate-secret|stats`: operating webhook endpoints (API keys and admins only). */
export function registerWebhooks(cli: Command, api: () => ApiContext): void {
  const webhooks = cli
    .command('webhooks')
    .description('list webhook endpoints, send a test event, recover failed deliveries, rotate a signing secret, see delivery stats')
    .addHelpText(
      'after',
      [
        '\nNeeds an API key or an admin; a machine token is FORBIDDEN.',
        '\nExamples: secrets webhooks list',
        '          secrets webhooks test we_01J…',
        '          secrets webhooks recover we_01J… --since 24h',
        '          NEW=$(secrets webhooks rotate-secret we_01J… --expire-current-in-hours 24)',
        '          secrets webhooks stats we_01J… --since 7d',
      ].join('\n'),
    );
  registerList(webhooks, api);
  registerTest(webhooks, api);
  registerRecover(webhooks, api);
  registerRotate(webhooks, api);
  registerStats(webhooks, api);
}
