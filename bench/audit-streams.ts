import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { attributeCalls, observeInvocations, type InvocationEvent } from '../bin/local/instrumentation.ts';
import { AUDIT_DIGESTER_FUNCTION, AUDIT_STREAM_WORKER_FUNCTION } from '../shared/platform/functions.ts';
import { startHttpsReceiver } from '../test/support/https-receiver.ts';
import type { makeCallRecorder } from './calls.ts';
import { request, type Api } from './load.ts';
import { costPerMillion, perUnit, type OperationCalls } from './prices.ts';

/**
 * What audit streams and digests cost at AWS billing (issue 51), on the local stack.
 *
 * Streams: 1,000 reveal entries (10 environment loads of 100 secrets) delivered to one https stream (a receiver on
 * loopback), measured twice, with the stream and with it disabled: the fan-out's difference (its stream messages and
 * the workspace's streams read; its invocations are the webhooks' and the syncs' too, and not counted, as for every
 * write in this bench) plus all of the worker's (its invocations' wall time rounded up, the stream read, the health
 * write, the credentials opened, SQS as billed in 64 KB chunks, and Lambda's event source: a receive and a delete for
 * each invocation). Per million entries.
 *
 * Digests: the digester's run over that hour, at once (its clock two hours on), in its own scope: the workspaces'
 * list, each workspace's last digest and the hour's entries read, the digest item put, the signature (KMS asymmetric
 * requests are $0.15 per 10,000), and the bucket's two PUTs a digest (the local bucket is a folder: counted here) and
 * a year of storage of the gzip entries (Object Lock keeps them `auditRetentionDays`, 365 by default). Per workspace
 * and month (730 hours) with that hour's entries every hour. `BENCH_ONLY=audit-streams npm run bench` runs this alone.
 */

const ENTRIES = 1000;
const SECRETS = 100;
const WORKER = 'audit-stream-worker';
/** KMS asymmetric requests (Sign, GetPublicKey) other than RSA 2048: $0.15 per 10,000. */
const KMS_ASYMMETRIC_REQUEST = 0.15 / 10_000;
/** S3 Standard: PUT requests, and storage per GB-month. */
const S3_PUT = 0.005 / 1000;
const S3_GB_MONTH = 0.023;
const HOURS_A_MONTH = 730;

export interface AuditStreamsCost {
  entries: number;
  workerInvocations: number;
  workerBilledMs: number;
  /** What the stream added to the burst: the fan-out's share and all of the worker's, SQS's event source included. */
  calls: OperationCalls;
  costPerMillionEntriesUsd: number;
}

export interface DigestsCost {
  /** The table items the hour's Query read (reveal entries are packed, up to 101 an item). */
  itemsInTheHour: number;
  digests: number;
  perDigest: OperationCalls & { signatures: number; s3Puts: number; gzipBytes: number; billedMs: number };
  costPerWorkspaceMonthUsd: number;
}

/** Waits until `probe` answers true (polling every 25 ms), or throws after `ms`. */
async function until(probe: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 25));
  }
}

/** `a` less `b`, count by count, never below zero. */
function minus(a: OperationCalls, b: OperationCalls): OperationCalls {
  return Object.fromEntries(
    Object.entries(a).map(([name, value]) => [name, typeof value === 'number' ? Math.max(0, value - ((b as never)[name] ?? 0)) : value]),
  ) as OperationCalls;
}

export async function measureAuditStreams(
  api: Api,
  recorder: ReturnType<typeof makeCallRecorder>,
  localDir: string,
): Promise<{ auditStreams: AuditStreamsCost; digests: DigestsCost }> {
  const receiver = await startHttpsReceiver();
  try {
    const project = await request(api, 'POST', '/api/v1/projects', { name: 'Audit stream bench' }, 201);
    const environment = await request(api, 'POST', `/api/v1/projects/${project.data.id}/environments`, { name: 'prod' }, 201);
    const path = `/api/v1/environments/${environment.data.id}/secrets`;
    for (let n = 0; n < SECRETS; n++) await request(api, 'PUT', path, { key: `KEY_${n}`, value: `value-${n}` });
    const stream = await request(api, 'POST', '/api/v1/audit-streams', { type: 'https', url: `${receiver.origin}/siem` }, 201);
    const received = () =>
      receiver.requests.reduce((sum, r) => sum + r.body.split('\n').filter((line) => line.includes('"secret.reveal"')).length, 0);
    const burst = async () => {
      for (let n = 0; n < ENTRIES / SECRETS; n++) await request(api, 'POST', `${path}/reveal`, {});
    };
    // Warm: every client, data key and the routing read.
    await burst();
    await until(() => received() >= ENTRIES, 60_000, 'the warm-up burst at the receiver');

    const seen: InvocationEvent[] = [];
    const stopObserving = observeInvocations((event) => seen.push(event));
    const before = received();
    const streamed = await recorder
      .measure(
        ['webhook-fanout', WORKER],
        async () => {
          await burst();
          await until(() => received() >= before + ENTRIES, 60_000, 'the burst at the receiver');
        },
        500,
      )
      .finally(stopObserving);
    // The worker's own share from the same run: its scope alone, re-counted from the events of the run above.
    const workerEvents = seen.filter((event) => event.scope === WORKER);
    const invocations = workerEvents.length;
    const billedMs = workerEvents.reduce((sum, event) => sum + Math.ceil(event.wallMs), 0);
    // Without the stream: the same burst, the fan-out alone.
    await request(api, 'PATCH', `/api/v1/audit-streams/${stream.data.id}`, { status: 'disabled' });
    const plain = await recorder.measure(['webhook-fanout', WORKER], burst, 3000);
    const added = minus(streamed, plain);
    const withSqs = { ...added, sqsBilledRequests: added.sqsBilledRequests + 2 * invocations };
    const cost = costPerMillion(perUnit(withSqs, ENTRIES), {
      lambdaInvocations: invocations / ENTRIES,
      durationMs: billedMs / ENTRIES,
      memoryMb: AUDIT_STREAM_WORKER_FUNCTION.memoryMb,
    });
    const auditStreams: AuditStreamsCost = {
      entries: ENTRIES,
      workerInvocations: invocations,
      workerBilledMs: billedMs,
      calls: withSqs,
      costPerMillionEntriesUsd: cost,
    };
    return { auditStreams, digests: await measureDigests(recorder, localDir) };
  } finally {
    await receiver.close();
  }
}

/** The digester's run over the current hour (its clock two hours on), in its own scope, priced per workspace-month. */
async function measureDigests(recorder: ReturnType<typeof makeCallRecorder>, localDir: string): Promise<DigestsCost> {
  const { runtime } = await import('../shared/platform/runtime.ts');
  const { digestMakerOf } = await import('../shared/audit-digests/index.ts');
  const { db, pager } = runtime();
  const maker = digestMakerOf({ db, pager, env: process.env });
  const bucket = join(localDir, 'audit-bucket');
  const sizeOf = () => filesOf(bucket).reduce((sum, file) => sum + (file.endsWith('.jsonl.gz') ? statSync(file).size : 0), 0);
  const gzipBefore = sizeOf();
  const seen: InvocationEvent[] = [];
  const stop = observeInvocations((event) => seen.push(event));
  let run = { workspaces: 0, digests: 0, failed: 0 };
  const calls = await recorder
    .measure(['audit-digester'], async () => {
      run = await attributeCalls('audit-digester', () => maker.run(Date.now() + 2 * 3_600_000));
    })
    .finally(stop);
  const digests = Math.max(1, run.digests);
  const per = perUnit(calls, digests);
  // One Sign a digest (digest-maker.ts signs each once). The local signer is the keyring's own code, not an SDK client
  // the recorder sees, so the count is the code's; on AWS it is a KMS asymmetric request.
  const signatures = 1;
  const gzipBytes = (sizeOf() - gzipBefore) / digests;
  const billedMs = Math.ceil(seen.filter((event) => event.scope === 'audit-digester').reduce((sum, e) => sum + e.wallMs, 0) / digests);
  // KMS here is the signature alone (Sign, asymmetric); the table, Lambda and S3 at their prices.
  const tableAndLambda =
    costPerMillion({ ...per, kmsRequests: 0 }, { lambdaInvocations: 0, durationMs: billedMs, memoryMb: AUDIT_DIGESTER_FUNCTION.memoryMb }) /
    1e6;
  const perDigest = tableAndLambda + signatures * KMS_ASYMMETRIC_REQUEST + 2 * S3_PUT;
  // A year of the hour's gzip entries kept: at steady state 12 months of them are stored at once.
  const storage = ((gzipBytes * HOURS_A_MONTH * 12) / 1e9) * S3_GB_MONTH;
  return {
    itemsInTheHour: Math.round(per.itemsRead ?? 0),
    digests: run.digests,
    perDigest: { ...per, signatures, s3Puts: 2, gzipBytes: Math.round(gzipBytes), billedMs },
    costPerWorkspaceMonthUsd: Math.round((perDigest * HOURS_A_MONTH + storage) * 10_000) / 10_000,
  };
}

/** Every file under `dir` (none when it does not exist). */
function filesOf(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

/** The bench output's lines for audit streams and digests. */
export function auditStreamsTable(results: { auditStreams: AuditStreamsCost; digests: DigestsCost }): string {
  const s = results.auditStreams;
  const d = results.digests;
  return [
    '| audit streams and digests | DynamoDB RRU, WRU | KMS | SQS (billed) | worker invocations, billed ms | price |',
    '|---|---|---|---|---|---|',
    `| ${s.entries} reveal entries to one https stream | ${s.calls.billedReadUnits}, ${s.calls.billedWriteUnits} | ${s.calls.kmsRequests} | ${s.calls.sqsBilledRequests} | ${s.workerInvocations}, ${s.workerBilledMs} | $${s.costPerMillionEntriesUsd} per million entries |`,
    `| a digest of an hour (${d.itemsInTheHour} items read) | ${d.perDigest.billedReadUnits}, ${d.perDigest.billedWriteUnits} | ${d.perDigest.signatures} signature | 2 S3 PUTs, ${d.perDigest.gzipBytes} B gzip | ${d.perDigest.billedMs} ms | $${d.costPerWorkspaceMonthUsd} per workspace and month |`,
  ].join('\n');
}
