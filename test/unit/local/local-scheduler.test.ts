import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { startLocalScheduler, type LocalScheduler } from '../../../bin/local/local-scheduler.ts';
import { LOCAL_DELIVERY_QUEUE, startLocalSqs, type LocalSqs } from '../../../bin/local/sqs.ts';
import { makeSqsClient } from '../../../shared/platform/clients/sqs.ts';
import { receiveFor, waitFor } from './support.ts';

let local: LocalSqs;
let sqs: SQSClient;
let dir: string;
let schedulers: LocalScheduler[] = [];

beforeAll(async () => {
  local = await startLocalSqs();
  sqs = makeSqsClient({ endpoint: local.endpoint, region: local.region });
  dir = mkdtempSync(join(tmpdir(), 'local-scheduler-'));
});
afterEach(async () => {
  for (const scheduler of schedulers) await scheduler.stop();
  schedulers = [];
  local.server.reset();
});
afterAll(async () => {
  sqs.destroy();
  await local.stop();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
const newFile = () => join(dir, `schedules-${++files}.json`);
const start = async (file: string) => {
  const scheduler = await startLocalScheduler({ file, sqs, queueUrl: local.queueUrl });
  schedulers.push(scheduler);
  return scheduler;
};
const saved = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8')) as { version: number; schedules: Record<string, { at: number; messageBody: string }> };
const queued = () => local.server.inspectQueue(LOCAL_DELIVERY_QUEUE)!.messages.ready.map((message) => message.body);

describe('local one-time scheduler', { timeout: 15_000 }, () => {
  it('sends the message at its time, not before, then deletes the schedule', async () => {
    // Prepare
    const file = newFile();
    const scheduler = await start(file);
    const at = Date.now() + 400;

    // Act
    await scheduler.schedule({ name: 'whd_A-tok1', at, messageBody: 'first' });
    const savedBefore = saved(file);
    const received = await receiveFor(sqs, local.queueUrl, 1_500);

    // Assess
    expect(savedBefore.schedules).toEqual({ 'whd_A-tok1': { at, messageBody: 'first' } });
    expect(received.map((message) => message.body)).toEqual(['first']);
    expect(received[0]!.at).toBeGreaterThanOrEqual(at);
    await waitFor(() => scheduler.pending().length === 0, 1_000, 'the schedule to delete itself');
    await waitFor(() => Object.keys(saved(file).schedules).length === 0, 2_000, 'the file to drop the schedule');
    expect(saved(file).schedules).toEqual({});
  });

  it('keeps a pending schedule across a restart and fires it from the new instance', async () => {
    // Prepare
    const file = newFile();
    const first = await start(file);
    const at = Date.now() + 600;
    await first.schedule({ name: 'whd_B-tok1', at, messageBody: 'survivor' });

    // Act
    await first.stop();
    const second = await start(file);
    await waitFor(() => queued().length > 0, 3_000, 'the message from the restarted scheduler');

    // Assess
    expect(Date.now()).toBeGreaterThanOrEqual(at);
    expect(queued()).toEqual(['survivor']);
    await waitFor(() => second.pending().length === 0, 1_000, 'the schedule to delete itself');
    // The file is written after the in-memory deletion (queued atomic writes): wait for it rather than race it.
    await waitFor(() => Object.keys(saved(file).schedules).length === 0, 2_000, 'the file to drop the schedule');
    expect(saved(file).schedules).toEqual({});
    await sleep(200);
    expect(queued()).toEqual(['survivor']);
  });

  it('fires overdue schedules right after start', async () => {
    // Prepare
    const file = newFile();
    writeFileSync(file, JSON.stringify({ version: 1, schedules: { 'whd_C-tok1': { at: Date.now() - 60_000, messageBody: 'late' } } }));

    // Act
    const startedAt = Date.now();
    await start(file);
    await waitFor(() => queued().length > 0, 1_000, 'the overdue message');

    // Assess
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(queued()).toEqual(['late']);
  });

  it('schedules a name once, however often it is asked, and refuses names EventBridge Scheduler would', async () => {
    // Prepare
    const file = newFile();
    const scheduler = await start(file);
    const at = Date.now() + 200;

    // Act
    await scheduler.schedule({ name: 'whd_D-tok1', at, messageBody: 'once' });
    await scheduler.schedule({ name: 'whd_D-tok1', at, messageBody: 'once' });
    await scheduler.schedule({ name: 'whd_D-tok1', at: at + 100, messageBody: 'a different body' });
    const refused = await scheduler.schedule({ name: 'bad name', at, messageBody: 'x' }).then(
      () => 'accepted',
      (error: unknown) => String(error),
    );
    const received = await receiveFor(sqs, local.queueUrl, 1_200);

    // Assess
    expect(refused).toMatch(/Invalid schedule name/);
    expect(received.map((message) => message.body)).toEqual(['once']);
  });
});
