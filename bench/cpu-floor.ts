import { createCipheriv, randomBytes } from 'node:crypto';
import * as crypto from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as lib from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The CPU floor of an operation: the same DynamoDB requests (same commands, same items, so the same sizes) and the
 * same AES-GCM work, made with plain @aws-sdk/lib-dynamodb calls and node:crypto, with nothing of the service
 * around them, and as many in flight together as the handler had. The steps are recorded from the real handler
 * while it runs, never written by hand, so the floor follows the operation when its calls change.
 */

/** One step of a recorded request: a document-client command, or one AES-GCM decryption or encryption. */
export type Step =
  | {
      kind: 'dynamodb';
      command: string;
      input: Record<string, unknown>;
      output?: unknown;
      /**
       * Commands sent while another was in flight share its wave (a token read beside its prefetch, a bulk
       * reveal's audit puts); the floor sends a wave's commands together, as the handler did.
       */
      wave: number;
    }
  | {
      kind: 'gcm';
      decrypt: boolean;
      algorithm: string;
      keyBytes: number;
      ivBytes: number;
      tagBytes: number;
      aadBytes: number;
      dataBytes: number;
    };

/** The steps of each recorded request, in order. */
export type Recording = Step[][];

/**
 * Records every command sent through `doc` and every AES-GCM cipher made through node:crypto while `work` runs,
 * one list of steps per request (`work` calls `next()` before each request). The wrappers are removed afterwards,
 * so they never weigh on a measured request.
 */
export async function recordSteps(doc: DynamoDBDocumentClient, work: (next: () => void) => Promise<void>): Promise<Recording> {
  const recording: Recording = [];
  const push = (step: Step) => recording.at(-1)?.push(step);
  const send = doc.send;
  let wave = 0;
  let inFlight = 0;
  doc.send = ((command: { constructor: { name: string }; input: Record<string, unknown> }, ...rest: unknown[]) => {
    if (inFlight++ === 0) wave++;
    const step: Step = { kind: 'dynamodb', command: command.constructor.name, input: structuredClone(command.input), wave };
    push(step);
    const sent = (send as (...args: unknown[]) => Promise<unknown>).call(doc, command, ...rest);
    return sent.then(
      (output) => (inFlight--, (step.output = structuredClone(output)), output),
      (error: unknown) => {
        inFlight--;
        throw error;
      },
    );
  }) as typeof doc.send;
  const restoreCrypto = wrapGcm(push);
  try {
    await work(() => recording.push([]));
  } finally {
    doc.send = send;
    restoreCrypto();
  }
  return recording;
}

/** Wraps node:crypto's createCipheriv/createDecipheriv (ESM bindings included) to note each AES-GCM use and its sizes. */
function wrapGcm(push: (step: Step) => void): () => void {
  const cjs = createRequire(import.meta.url)('node:crypto') as typeof crypto;
  const originals = { createCipheriv: cjs.createCipheriv, createDecipheriv: cjs.createDecipheriv };
  const wrap =
    (decrypt: boolean, make: (...args: any[]) => crypto.Cipheriv | crypto.Decipheriv) =>
    (algorithm: string, key: Buffer, iv: Buffer, options?: { authTagLength?: number }) => {
      const made = make(algorithm, key, iv, options);
      if (!algorithm.endsWith('-gcm')) return made;
      const step = {
        kind: 'gcm' as const,
        decrypt,
        algorithm,
        keyBytes: key.length,
        ivBytes: iv.length,
        tagBytes: options?.authTagLength ?? 16,
        aadBytes: 0,
        dataBytes: 0,
      };
      push(step);
      const { setAAD, update } = made as crypto.DecipherGCM;
      (made as crypto.DecipherGCM).setAAD = (aad: NodeJS.ArrayBufferView, ...rest: any[]) => (
        (step.aadBytes += aad.byteLength), setAAD.call(made, aad, ...rest)
      );
      (made as any).update = (data: string | NodeJS.ArrayBufferView, ...rest: any[]) => {
        step.dataBytes += typeof data === 'string' ? Buffer.byteLength(data, rest[0] ?? 'utf8') : data.byteLength;
        return (update as (...args: any[]) => Buffer).call(made, data, ...rest);
      };
      return made;
    };
  Object.assign(cjs, { createCipheriv: wrap(false, originals.createCipheriv), createDecipheriv: wrap(true, originals.createDecipheriv) });
  syncBuiltinESMExports();
  return () => {
    Object.assign(cjs, originals);
    syncBuiltinESMExports();
  };
}

/**
 * Replays a recording with a plain document client: request `i` replays recorded request `i mod n`. Reads are sent
 * as recorded (the same items); writes go to `FLOOR#` copies of their keys, each put under a fresh sort key so its
 * conditions hold as they did. The commands of one wave (sent while another was in flight) are sent together, and
 * the next wave once they have all answered. AES-GCM steps run on prepared inputs of the recorded sizes with a key
 * held in memory, as a cached data key is, where they were recorded.
 *
 * `sequential` sends every command alone, one after the other, as the floor did before 9def0f6: only to compare with
 * figures of that time. It is dearer than the handler's own sends (each answer waited for alone), so it flatters the
 * ratio: see docs/performance.md, "Why the reveal's ratio went from 1.04 to 1.2".
 */
export function makeFloor(doc: DynamoDBDocumentClient, recording: Recording, options: { sequential?: boolean } = {}) {
  const commands = lib as unknown as Record<string, new (input: unknown) => object>;
  const prepared = recording.map((steps) =>
    steps.map((step) => (step.kind === 'gcm' ? { step, gcm: prepareGcm(step) } : { step, gcm: undefined })),
  );
  return {
    /** One floor request: the recorded steps of request `i`. */
    async request(i: number): Promise<void> {
      const n = floorSerial++;
      let wave: Promise<void>[] = [];
      let waveOf: number | undefined;
      for (const { step, gcm } of prepared[i % prepared.length]!) {
        if (gcm) gcm();
        else if (step.kind === 'dynamodb') {
          // A new wave starts once the last one has answered, as the handler's did.
          if (options.sequential || step.wave !== waveOf) {
            await Promise.all(wave);
            wave = [];
            waveOf = step.wave;
          }
          wave.push(sendFloor(doc, new commands[step.command]!(floorWrites(step.command, step.input, n))));
        }
      }
      await Promise.all(wave);
    },
    /**
     * What a recorded request does (by default the last, a warm one: the first reveal also unwraps its data key),
     * e.g. `BatchGetCommand, TransactWriteCommand, decrypt aes-256-gcm 18 B`; a step repeated in a row is written
     * once with its count (`decrypt aes-256-gcm 49 B ×20`).
     */
    describe: (i = recording.length - 1) =>
      runs(
        (recording[i] ?? []).map((s) =>
          s.kind === 'dynamodb' ? s.command : `${s.decrypt ? 'decrypt' : 'encrypt'} ${s.algorithm} ${s.dataBytes} B`,
        ),
      ),
  };
}

/** Consecutive equal entries as one, with `×n` when there are several. */
function runs(steps: string[]): string[] {
  const out: { step: string; n: number }[] = [];
  for (const step of steps) {
    const last = out.at(-1);
    if (last?.step === step) last.n++;
    else out.push({ step, n: 1 });
  }
  return out.map(({ step, n }) => (n > 1 ? `${step} ×${n}` : step));
}

/** Inputs of the recorded sizes and the work of one AES-GCM step over them (a decryption checks its tag). */
function prepareGcm(step: Extract<Step, { kind: 'gcm' }>): () => void {
  const key = randomBytes(step.keyBytes);
  const iv = randomBytes(step.ivBytes);
  const aad = randomBytes(step.aadBytes);
  const plain = randomBytes(step.dataBytes);
  const sealer = createCipheriv(step.algorithm as crypto.CipherGCMTypes, key, iv, { authTagLength: step.tagBytes });
  sealer.setAAD(aad);
  const sealed = Buffer.concat([sealer.update(plain), sealer.final()]);
  const tag = sealer.getAuthTag();
  return () => {
    const gcm = step.decrypt
      ? crypto.createDecipheriv(step.algorithm as crypto.CipherGCMTypes, key, iv, { authTagLength: step.tagBytes })
      : crypto.createCipheriv(step.algorithm as crypto.CipherGCMTypes, key, iv, { authTagLength: step.tagBytes });
    gcm.setAAD(aad);
    if (step.decrypt) (gcm as crypto.DecipherGCM).setAuthTag(tag);
    Buffer.concat([gcm.update(step.decrypt ? sealed : plain), gcm.final()]);
  };
}

/**
 * Sends one floor request. An Update replayed on its `FLOOR#` key keeps its recorded condition, which a concurrent
 * or repeated replay can find false (two transactions of a write on the same floor key): the request was still made
 * and answered, so the floor takes the refusal as its answer rather than stop the bench, and counts it.
 */
async function sendFloor(doc: DynamoDBDocumentClient, command: object): Promise<void> {
  try {
    await doc.send(command as never);
  } catch (error) {
    if (!['ConditionalCheckFailedException', 'TransactionCanceledException'].includes((error as Error).name)) throw error;
    floorRefusals++;
  }
}

/** Floor requests answered with a failed condition so far (see `sendFloor`); the CPU bench reports them. */
export let floorRefusals = 0;

type Item = Record<string, unknown> & { PK: string; SK: string };

/** Numbers the floor's puts across every floor of the process, so that no two ever write the same key. */
let floorSerial = 0;

const floorKey = (key: Item) => ({ ...key, PK: `FLOOR#${key.PK}` });
const floorItem = (item: Item, n: number) => ({ ...item, PK: `FLOOR#${item.PK}`, SK: `${item.SK}#${n}` });

/** The input with every written key moved under `FLOOR#` (reads and condition checks unchanged). */
function floorWrites(command: string, input: Record<string, any>, n: number): Record<string, unknown> {
  switch (command) {
    case 'PutCommand':
      return { ...input, Item: floorItem(input.Item, n) };
    case 'UpdateCommand':
    case 'DeleteCommand':
      return { ...input, Key: floorKey(input.Key) };
    case 'TransactWriteCommand':
      return {
        ...input,
        TransactItems: input.TransactItems.map((item: Record<string, any>) => {
          if (item.Put) return { Put: { ...item.Put, Item: floorItem(item.Put.Item, n) } };
          if (item.Update) return { Update: { ...item.Update, Key: floorKey(item.Update.Key) } };
          if (item.Delete) return { Delete: { ...item.Delete, Key: floorKey(item.Delete.Key) } };
          return item;
        }),
      };
    case 'BatchWriteCommand':
      return {
        ...input,
        RequestItems: Object.fromEntries(
          Object.entries(input.RequestItems as Record<string, Record<string, any>[]>).map(([table, requests]) => [
            table,
            requests.map((r) =>
              r.PutRequest
                ? { PutRequest: { Item: floorItem(r.PutRequest.Item, n) } }
                : { DeleteRequest: { Key: floorKey(r.DeleteRequest.Key) } },
            ),
          ]),
        ),
      };
    default:
      return input;
  }
}

/**
 * Answers the commands sent through `doc` in memory with copies of the recorded outputs, each kind of command in its
 * recorded order, so that the handler's own work can be measured and profiled alone (no SDK, no network). A command
 * the recording does not hold (a credential's `lastUsedAt`, due once a minute) is answered `{}`. The copies for
 * `requests` requests are made here, ahead of any timed loop. Answers the function that undoes it.
 */
export function stubSends(doc: DynamoDBDocumentClient, recording: Recording, requests: number): () => void {
  return stubSendsOf(doc, { only: recording }, requests).restore;
}

/**
 * `stubSends` over several recordings, each with its own queues: `use(name)` says whose recording answers the
 * next requests, so that two credentials (each with the answers its own requests got) can take turns request by
 * request.
 */
export function stubSendsOf<K extends string>(doc: DynamoDBDocumentClient, recordings: Record<K, Recording>, requests: number) {
  const queues = {} as Record<K, Map<string, { items: unknown[]; next: number }>>;
  for (const name of Object.keys(recordings) as K[]) queues[name] = answersOf(recordings[name], requests);
  let active = Object.keys(recordings)[0] as K;
  const send = doc.send;
  doc.send = (async (command: object) => {
    const queue = queues[active].get(command.constructor.name);
    return (queue && queue.items[queue.next++]) ?? {};
  }) as unknown as typeof doc.send;
  return {
    use: (name: K) => void (active = name),
    restore: () => void (doc.send = send),
  };
}

/** Copies of the recorded outputs of `requests` requests (cycling through the recording), by command. */
function answersOf(recording: Recording, requests: number): Map<string, { items: unknown[]; next: number }> {
  const outputs = new Map<string, { items: unknown[]; next: number }>();
  for (let i = 0; i < requests; i++) {
    for (const step of recording[i % recording.length]!) {
      if (step.kind !== 'dynamodb') continue;
      if (!outputs.has(step.command)) outputs.set(step.command, { items: [], next: 0 });
      outputs.get(step.command)!.items.push(structuredClone(step.output));
    }
  }
  return outputs;
}
