import { afterEach, describe, expect, it, vi } from 'vitest';
import { levelFromEnv, logger, requestLogger } from '../../../shared/platform/logger.ts';

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
  return written
    .join('')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
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

describe('container logger', () => {
  const level = logger.getLevelName();
  afterEach(() => {
    logger.setLogLevel(level);
    vi.unstubAllEnvs();
  });

  it('writes the fields the Powertools Logger wrote, first and in its order, then the attributes', () => {
    // Prepare
    logger.setLogLevel('INFO');
    vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
    // Act
    const [line] = capture(() => logger.info('sweeper found lost work', { requeued: 2, purged: 0, skipped: undefined, none: null }));
    // Assess
    expect(Object.keys(line!)).toEqual([
      'level',
      'message',
      'timestamp',
      'service',
      'sampling_rate',
      'xray_trace_id',
      'requeued',
      'purged',
    ]);
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'sweeper found lost work',
      service: 'secrets-service',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
    });
    expect(new Date(line!.timestamp as string).toISOString()).toBe(line!.timestamp);
  });

  it('never lets an attribute replace a line field, and writes an Error without its message', () => {
    // Prepare
    logger.setLogLevel('INFO');
    const error = new TypeError('value sk_live_123 is not valid');
    // Act
    const [line] = capture(() =>
      logger.child({ component: 'poller' }).error('failed', { message: 'x', level: 'DEBUG', error, count: 10n }),
    );
    // Assess
    expect(line).toMatchObject({ level: 'ERROR', message: 'failed', component: 'poller', count: '10', error: { name: 'TypeError' } });
    expect((line!.error as { frames: string }).frames).toMatch(/^\s+at /);
    expect(JSON.stringify(line)).not.toContain('sk_live_123');
  });

  it('keeps a message that looks like a stack frame out of the frames, and drops the frames of a rewritten message', () => {
    // Prepare
    logger.setLogLevel('INFO');
    const forged = new Error('bad input\n    at sk_live_forged (file.ts:1:1)');
    const rewritten = new Error('original');
    // V8 writes the stack when it is first read: read before the message changes, it starts with the old message.
    void rewritten.stack;
    rewritten.message = 'now quoting sk_live_rewritten';
    // Act
    const [line] = capture(() => logger.error('failed', { forged, rewritten }));
    // Assess
    expect(JSON.stringify(line)).not.toContain('sk_live_');
    expect((line!.forged as { frames: string }).frames).toMatch(/^\s+at /);
    expect(line!.rewritten).toEqual({ name: 'Error' });
  });

  it('writes debug and info to stdout, warnings and errors to stderr', () => {
    // Prepare
    logger.setLogLevel('DEBUG');
    const out: string[] = [];
    const err: string[] = [];
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true)),
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true)),
    ];
    // Act
    try {
      for (const method of ['debug', 'info', 'warn', 'error'] as const) logger[method](method);
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    // Assess
    expect(out.map((line) => JSON.parse(line).message)).toEqual(['debug', 'info']);
    expect(err.map((line) => JSON.parse(line).message)).toEqual(['warn', 'error']);
  });

  it('takes its level from Lambda log controls, then POWERTOOLS_LOG_LEVEL, then LOG_LEVEL, else INFO', () => {
    expect(levelFromEnv({ AWS_LAMBDA_LOG_LEVEL: 'WARN', POWERTOOLS_LOG_LEVEL: 'DEBUG' })).toBe('WARN');
    expect(levelFromEnv({ POWERTOOLS_LOG_LEVEL: 'error', LOG_LEVEL: 'DEBUG' })).toBe('ERROR');
    expect(levelFromEnv({ LOG_LEVEL: 'DEBUG' })).toBe('DEBUG');
    expect(levelFromEnv({ AWS_LAMBDA_LOG_LEVEL: 'FATAL' })).toBe('CRITICAL');
    expect(levelFromEnv({ POWERTOOLS_LOG_LEVEL: 'LOUD' })).toBe('INFO');
    expect(levelFromEnv({})).toBe('INFO');
    // An empty or unknown value is passed over for the next variable; values are trimmed.
    expect(levelFromEnv({ POWERTOOLS_LOG_LEVEL: '', LOG_LEVEL: 'DEBUG' })).toBe('DEBUG');
    expect(levelFromEnv({ AWS_LAMBDA_LOG_LEVEL: 'LOUD', POWERTOOLS_LOG_LEVEL: ' warn ' })).toBe('WARN');
  });
});
