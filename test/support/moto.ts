import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * moto's server (the machine's `python3 -m moto.server`, moto 5): one local endpoint for SSM, Secrets Manager and STS,
 * as `SYNC_AWS_ENDPOINT` expects. A test that needs it and cannot start it fails: `startMoto` throws, with moto's own
 * output, and never resolves to something a test could skip on.
 */
export interface Moto {
  /** `http://127.0.0.1:<port>` */
  url: string;
  stop: () => Promise<void>;
}

const START_TIMEOUT_MS = 30_000;

/** Starts moto on a free port of 127.0.0.1 and waits until it answers. */
export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(url, child);
  } catch (error) {
    await stop(child);
    throw new Error(`moto_server did not start (${(error as Error).message}): ${output.slice(-2000)}`);
  }
  return { url, stop: () => stop(child) };
}

async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    const answered = await fetch(`${url}/moto-api/`).then(
      (response) => response.status < 500,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no answer within ${START_TIMEOUT_MS / 1000} s`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
