import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { nextFire, startRecurringScheduler } from '../../../bin/local/recurring-scheduler.ts';

/** The local stand-in for EventBridge's recurring schedules: fires at each time its expression names, until deleted. */

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function harness() {
  const dir = mkdtempSync(join(tmpdir(), 'recurring-'));
  dirs.push(dir);
  const sent: string[] = [];
  const sqs = { send: vi.fn(async (command: { input: { MessageBody: string } }) => void sent.push(command.input.MessageBody)) };
  return { file: join(dir, 'rotation-schedules.json'), sqs: sqs as unknown as SQSClient, sent };
}

describe('the local recurring scheduler', () => {
  it('computes the next time of a rate from when it was made, and of a cron in UTC', () => {
    const since = Date.parse('2026-11-28T12:00:00Z');
    expect(nextFire({ expression: 'rate(4 hours)', since }, since)).toBe(since + 4 * 3_600_000);
    expect(nextFire({ expression: 'rate(4 hours)', since }, since + 5 * 3_600_000)).toBe(since + 8 * 3_600_000);
    expect(new Date(nextFire({ expression: 'cron(0 4 ? * MON *)', since }, since)!).toISOString()).toBe('2026-11-30T04:00:00.000Z');
  });

  it('sends at every time a rate names, and stops when the schedule is deleted', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-28T12:00:00Z'), toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const h = harness();
    const scheduler = await startRecurringScheduler({ file: h.file, sqs: h.sqs });
    await scheduler.put('rotate-sec_1', { expression: 'rate(4 hours)', messageBody: '{"step":"start"}', queueUrl: 'q' });

    await vi.advanceTimersByTimeAsync(4 * 3_600_000 - 1_000);
    expect(h.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.sent).toEqual(['{"step":"start"}']);
    await vi.advanceTimersByTimeAsync(4 * 3_600_000);
    expect(h.sent).toHaveLength(2);

    expect(await scheduler.remove('rotate-sec_1')).toBe(true);
    await vi.advanceTimersByTimeAsync(8 * 3_600_000);
    expect(h.sent).toHaveLength(2);
    await scheduler.stop();
  });

  it('keeps its schedules across a restart, and fires a time missed while stopped once', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-28T12:00:00Z'), toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const h = harness();
    const first = await startRecurringScheduler({ file: h.file, sqs: h.sqs });
    await first.put('rotate-sec_2', { expression: 'rate(4 hours)', messageBody: 'b', queueUrl: 'q' });
    await first.stop();

    // Stopped through three of its times.
    vi.setSystemTime(Date.parse('2026-11-28T12:00:00Z') + 13 * 3_600_000);
    const second = await startRecurringScheduler({ file: h.file, sqs: h.sqs });
    await vi.advanceTimersByTimeAsync(1);
    expect(h.sent).toEqual(['b']);
    await vi.advanceTimersByTimeAsync(3 * 3_600_000 - 10);
    expect(h.sent).toEqual(['b']);
    await vi.advanceTimersByTimeAsync(10);
    expect(h.sent).toEqual(['b', 'b']);
    await second.stop();
  });
});
