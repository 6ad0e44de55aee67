import https from 'node:https';

/**
 * How long one answer may hold an endpoint's shared connection before the attempts queued behind it stop waiting and
 * open connections of their own. About what a new TLS connection costs: a receiver that answers faster gets every
 * attempt of the batch on one connection, one slower than this does not serialise the batch (which would stretch the
 * invocation, and with it the bill, and could outlast the function's timeout).
 */
export const CONNECTION_STALL_MS = 250;

/** The agent an attempt sends through, and how it gives the connection back once its answer has been read. */
export interface ConnectionLease {
  agent: https.Agent;
  /** How long the attempt waited for the connection; not counted against the receiver's 10 seconds. */
  waitedMs: number;
  release(): void;
}

/**
 * The keep-alive TLS connections of one worker invocation. Connections are keyed by the checked IP, port and TLS
 * name (SNI), so an attempt only ever reuses a connection to the address its own SSRF check allowed just before.
 * One connection per key is shared in turn; when the attempt holding it takes longer than `CONNECTION_STALL_MS`,
 * the attempts queued behind it get extra connections from a second agent. `close()` destroys every socket, so none outlives the invocation (a frozen Lambda
 * would otherwise keep it half-open, and the next invocation could write into a connection the receiver dropped).
 */
export interface ConnectionPool {
  lease(key: string): Promise<ConnectionLease>;
  /** TLS connections opened through this pool so far. */
  opened(): number;
  close(): void;
}

/** A pool for one invocation: open it when the invocation starts, close it in `finally`. */
export function openConnectionPool(options: { stallMs?: number } = {}): ConnectionPool {
  const stallMs = options.stallMs ?? CONNECTION_STALL_MS;
  let opened = 0;
  const counting = (agent: https.Agent) => {
    const create = agent.createConnection.bind(agent);
    agent.createConnection = (...args: Parameters<typeof create>) => ((opened += 1), create(...args));
    return agent;
  };
  // `maxSockets: 1` per key: the shared agent hands its one connection from one request to the next itself.
  const shared = counting(new https.Agent({ keepAlive: true, maxSockets: 1 }));
  const extra = counting(new https.Agent({ keepAlive: true, scheduling: 'lifo' }));
  const lines = new Map<string, Line>();

  return {
    async lease(key) {
      const started = performance.now();
      const line = lines.get(key) ?? new Line(stallMs);
      lines.set(key, line);
      const turn = await line.join();
      const waitedMs = performance.now() - started;
      return turn ? { agent: shared, waitedMs, release: () => line.leave() } : { agent: extra, waitedMs, release: () => undefined };
    },
    opened: () => opened,
    close() {
      shared.destroy();
      extra.destroy();
    },
  };
}

/** The attempts of one key in line for its shared connection. */
class Line {
  private held = false;
  /** The holder has passed its allowance: whoever arrives now opens a connection of its own at once. */
  private stalled = false;
  private waiting: ((turn: boolean) => void)[] = [];
  private stall: NodeJS.Timeout | undefined;
  private readonly stallMs: number;

  constructor(stallMs: number) {
    this.stallMs = stallMs;
  }

  /** True once the shared connection is this attempt's; false when its holder stalled (use an extra one). */
  join(): Promise<boolean> {
    if (!this.held) {
      this.take();
      return Promise.resolve(true);
    }
    if (this.stalled) return Promise.resolve(false);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The holder is done: the next in line gets the connection, with a fresh allowance. */
  leave(): void {
    clearTimeout(this.stall);
    this.held = false;
    const next = this.waiting.shift();
    if (!next) return;
    this.take();
    next(true);
  }

  private take(): void {
    this.held = true;
    this.stalled = false;
    this.stall = setTimeout(() => {
      // The holder is slow: nobody queues behind it any longer, now or later.
      this.stalled = true;
      for (const waiter of this.waiting.splice(0)) waiter(false);
    }, this.stallMs);
  }
}
