/**
 * The one structured JSON logger of a container: one JSON line per call, with the fields the Powertools Logger used
 * to write (`level`, `message`, `timestamp`, `service`, `sampling_rate`, `xray_trace_id` when Lambda sets a trace),
 * then the logger's keys and the call's attributes. Nothing that reaches it may carry a token, a secret value, a
 * hash, a data key or a signing secret: callers log ids, names and codes, never payloads or headers. An Error among
 * the attributes is written as its name and stack frames only, since its message could quote input.
 */

type Attributes = Record<string, unknown>;

/** Powertools' levels and their order; POWERTOOLS_LOG_LEVEL (and LOG_LEVEL) take these names. */
const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
export type LogLevel = keyof typeof LEVELS;

/** The fields every line starts with; an attribute of the same name is dropped, never written over them. */
const RESERVED = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'xray_trace_id']);

/** What code may log: the levels a function uses, each line one JSON object. */
export interface Logger {
  debug(message: string, attributes?: Attributes): void;
  info(message: string, attributes?: Attributes): void;
  warn(message: string, attributes?: Attributes): void;
  error(message: string, attributes?: Attributes): void;
}

/** What a request may log: every line carries the request's id. */
export type RequestLog = Logger;

/** Lambda's Advanced Logging Controls level wins, then Powertools' own variable; INFO by default. */
export function levelFromEnv(env: NodeJS.ProcessEnv): LogLevel {
  // The first of them that names a level; one that is empty or unknown is passed over, as Powertools did.
  for (const raw of [env.AWS_LAMBDA_LOG_LEVEL, env.POWERTOOLS_LOG_LEVEL, env.LOG_LEVEL]) {
    const name = raw?.trim().toUpperCase();
    if (name === 'FATAL') return 'CRITICAL';
    if (name && name in LEVELS) return name as LogLevel;
  }
  return 'INFO';
}

const settings = { level: levelFromEnv(process.env), service: process.env.SERVICE_NAME ?? 'secrets-service' };

/** The trace of the current invocation, as Powertools read it: the `Root=` part of `_X_AMZN_TRACE_ID`. */
function traceId(): string | undefined {
  const header = process.env._X_AMZN_TRACE_ID;
  return header ? /(?:^|;)Root=([^;]+)/.exec(header)?.[1] : undefined;
}

/**
 * An Error's stack frames without its message: what follows the `name: message` head V8 starts the stack with (a
 * message with line breaks, or one that looks like a frame, stays out). When the stack does not start with that head
 * (the message changed after the error was made), no frames at all.
 */
function framesOf(error: Error): string | undefined {
  const head = error.message ? `${error.name}: ${error.message}` : error.name;
  const stack = error.stack;
  if (!stack?.startsWith(head)) return undefined;
  return stack
    .slice(head.length)
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
}

/**
 * An error's frames (as framesOf) at their TypeScript lines, for the unexpected errors the request pipelines log. The
 * functions run without `--enable-source-maps`, which read every bundle's map at each cold start (issue 52): the
 * mapping loads with the first error (./source-maps/frame-mapping.ts), V8's frames as they are if it cannot. An
 * Error among a line's attributes is written with V8's frames, since a line is written at once.
 */
export async function mappedFramesOf(error: unknown): Promise<string | undefined> {
  const frames = error instanceof Error ? framesOf(error) : undefined;
  return (
    frames &&
    import('./source-maps/frame-mapping.ts').then(
      (mapping) => mapping.mapFrames(frames),
      () => frames,
    )
  );
}

/** JSON.stringify's replacer: Errors as name and frames, bigints as strings, an object seen before left out. */
function replacer(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return { name: value.name, frames: framesOf(value) };
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return undefined;
      seen.add(value);
    }
    return value;
  };
}

/** Writes one line, if the level is on: debug and info to stdout, warnings and errors to stderr. */
function write(level: LogLevel, message: string, keys: Attributes | undefined, attributes: Attributes | undefined): void {
  if (LEVELS[level] < LEVELS[settings.level]) return;
  const line: Attributes = { level, message, timestamp: new Date().toISOString(), service: settings.service, sampling_rate: 0 };
  const trace = traceId();
  if (trace) line.xray_trace_id = trace;
  // As Powertools did, a key whose value is undefined, null or '' is left out.
  for (const extra of [keys, attributes]) {
    if (!extra) continue;
    for (const key of Object.keys(extra)) {
      const value = extra[key];
      if (!RESERVED.has(key) && value !== undefined && value !== null && value !== '') line[key] = value;
    }
  }
  (LEVELS[level] >= LEVELS.WARN ? process.stderr : process.stdout).write(`${JSON.stringify(line, replacer())}\n`);
}

/** A logger whose lines carry `keys`; every logger follows the container's one level. */
class JsonLogger implements Logger {
  readonly #keys: Attributes | undefined;
  constructor(keys?: Attributes) {
    this.#keys = keys;
  }
  debug(message: string, attributes?: Attributes): void {
    write('DEBUG', message, this.#keys, attributes);
  }
  info(message: string, attributes?: Attributes): void {
    write('INFO', message, this.#keys, attributes);
  }
  warn(message: string, attributes?: Attributes): void {
    write('WARN', message, this.#keys, attributes);
  }
  error(message: string, attributes?: Attributes): void {
    write('ERROR', message, this.#keys, attributes);
  }
  /** A logger whose lines also carry `keys` (the local stack's pollers name their component). */
  child(keys: Attributes): JsonLogger {
    return new JsonLogger({ ...this.#keys, ...keys });
  }
  /** The level of every logger of the container (tests and the local stack change it). */
  setLogLevel(level: LogLevel): void {
    settings.level = level;
  }
  getLevelName(): LogLevel {
    return settings.level;
  }
}

/** The container's logger. */
export const logger = new JsonLogger();

/** The logger of one request: every line carries its request id, and nothing is shared between requests. */
export function requestLogger(requestId: string): RequestLog {
  return new JsonLogger({ requestId });
}
