import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger, requestLogger } from '../../shared/logger.ts';

/** The JSON lines the container logger writes (warnings and errors to stderr) while `work` runs, in order. */
function capture(work: () => void): Record<string, unknown>[] {
  const written: string[] = [];
  const write = (chunk: unknown) => (written.push(String(chunk)), true);
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(write), vi.spyOn(process.stderr, 'write').mockImplementation(write)];
  try {
    work();
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
  return written.join('').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

describe('request logger', () => {
  const level = logger.getLevelName();
  afterEach(() => logger.setLogLevel(level));

  it('writes each line through the container logger with its own request id, and leaves no key on the container logger', () => {
    // Prepare
    logger.setLogLevel('INFO');
    const first = requestLogger('req_FIRST');
    const second = requestLogger('req_SECOND');
    // Act: two requests interleaved, as concurrent requests are in the local stack
    const lines = capture(() => {
      first.info('request completed', { status: 200 });
      second.error('unhandled error', { errorName: 'TypeError' });
      first.warn('slow', { durationMs: 3 });
      logger.info('container line');
    });
    // Assess
    expect(lines.map((line) => [line.level, line.message, line.requestId])).toEqual([
      ['INFO', 'request completed', 'req_FIRST'],
      ['ERROR', 'unhandled error', 'req_SECOND'],
      ['WARN', 'slow', 'req_FIRST'],
      ['INFO', 'container line', undefined],
    ]);
    expect(lines[0]).toMatchObject({ service: expect.any(String), timestamp: expect.any(String), status: 200 });
    expect(logger.getPersistentLogAttributes()).not.toHaveProperty('requestId');
  });

  it("follows the container logger's level", () => {
    // Prepare
    logger.setLogLevel('WARN');
    const log = requestLogger('req_LEVEL');
    // Act
    const lines = capture(() => {
      log.debug('debug line');
      log.info('info line');
      log.warn('warn line');
    });
    // Assess
    expect(lines.map((line) => line.message)).toEqual(['warn line']);
  });
});
