import type { SQSEvent } from 'aws-lambda';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import type { HealthChange } from '../../../shared/audit-streams/delivery/stream-health.ts';
import { streamOpener } from '../../../shared/audit-streams/delivery/stream-open.ts';
import { streamMessages, type StreamMessage } from '../../../shared/audit-streams/delivery/stream-queue.ts';
import { guardedStreamSender } from '../../../shared/audit-streams/delivery/stream-sender.ts';
import { makeStreamWorker } from '../../../shared/audit-streams/delivery/stream-worker.ts';
import type { AuditStreamRecord } from '../../../shared/audit-streams/stream-records.ts';
import type { GuardedGetResult, GuardedRequestOptions } from '../../../shared/net/guarded-get.ts';
import { auditStreamCredentialContext } from '../../../shared/platform/crypto/context.ts';
import type { Logger } from '../../../shared/platform/logger.ts';
import { fakeCipher, fakeClock, sealedFor } from '../support/fakes.ts';
import { HEADER_VALUE } from './support.ts';

/**
 * The audit stream worker over fakes: streams kept as the health store keeps them (its conditions included), a queue
 * that records what it is given, the real opener over the fake cipher, the real guarded sender over a scripted
 * transport, and a logger that keeps every line with its attributes.
 */

export const T = Date.parse('2026-12-07T10:00:00.000Z');
export const WS = 'ws_1';
export const SIGNING_SECRET = 'whsec_SIGNINGsecretSIGNINGsecretSIGNINGsecr';
export const QUERY_TOKEN = 'QUERYtoken42';
export const STREAM_URL = `https://siem.example/ingest?k=${QUERY_TOKEN}`;

/** Audit entry `n`, with a few hundred bytes of metadata. */
export function entry(n: number): AuditEntry {
  return {
    id: `aud_01KBX${String(n).padStart(21, '0')}`,
    action: 'secret.reveal',
    actorSub: 'usr_1',
    target: 'sec_1',
    metadata: { credentialKind: 'user', note: 'x'.repeat(200) },
    createdAt: '2026-12-07T09:59:58.123Z',
    accountId: 'acc_1',
  };
}

export const entries = (from: number, count: number) => Array.from({ length: count }, (_, i) => entry(from + i));

/** An active https stream whose signing secret and Authorization header are sealed for `ws_1`. */
export function httpsStream(over: Partial<AuditStreamRecord> = {}): AuditStreamRecord {
  const id = over.id ?? 'as_1';
  const sealed = {
    secret: sealedFor(SIGNING_SECRET, auditStreamCredentialContext(WS, id, 'secret')),
    headers: sealedFor(JSON.stringify({ Authorization: HEADER_VALUE }), auditStreamCredentialContext(WS, id, 'headers')),
  };
  return {
    type: 'https',
    url: STREAM_URL,
    headers: ['Authorization'],
    secretHint: 'whsec_…secr',
    id,
    accountId: 'acc_1',
    status: 'active',
    sealed,
    createdAt: '2026-12-01T00:00:00.000Z',
    updatedAt: '2026-12-01T00:00:00.000Z',
    revision: 1,
    ...over,
  } as AuditStreamRecord;
}

/** An SQS event of `messages` (or raw bodies), record ids `m0`, `m1`, … */
export function sqsEvent(messages: readonly (StreamMessage | string)[]): SQSEvent {
  const Records = messages.map((m, i) => ({ messageId: `m${i}`, body: typeof m === 'string' ? m : JSON.stringify(m) }));
  return { Records } as unknown as SQSEvent;
}

/** `list`'s entries as the fan-out queues them for stream `as_1`. */
export const fresh = (list: readonly AuditEntry[], streamId = 'as_1') => streamMessages(WS, streamId, list);

export interface Sent {
  url: string;
  options: GuardedRequestOptions;
  ids: string[];
}

/** The worker and what it touched; `answer` scripts the transport (by request number), `streams` is the table. */
export function worker(options: { streams?: AuditStreamRecord[]; timeScale?: number; refuseQueue?: boolean } = {}) {
  const clock = fakeClock(T);
  const streams = new Map((options.streams ?? [httpsStream()]).map((s) => [s.id, structuredClone(s)]));
  const changes: HealthChange[] = [];
  const audits: AuditEntry[] = [];
  const queued: { messages: StreamMessage[]; delay: number }[] = [];
  const sent: Sent[] = [];
  const lines: { level: string; message: string; attributes: Record<string, unknown> }[] = [];
  const script = { answer: (_n: number): GuardedGetResult => ({ kind: 'answered', statusCode: 200, body: Buffer.alloc(0) }) };
  const fail = { read: false };
  const at =
    (level: string) =>
    (message: string, attributes: Record<string, unknown> = {}) =>
      void lines.push({ level, message, attributes });
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const handler = makeStreamWorker({
    streams: {
      getStream: async (_ws, id) => {
        if (fail.read) throw Object.assign(new Error('table down'), { name: 'ServiceUnavailableError' });
        return structuredClone(streams.get(id));
      },
      record: async (_ws, id, change) => applyChange(streams, audits, changes, id, change),
    },
    queue: {
      enqueueAll: async (messages, delay = 0) => {
        if (options.refuseQueue) return messages.map((_, i) => i);
        queued.push({ messages: structuredClone([...messages]), delay });
        return [];
      },
    },
    openCredentials: streamOpener(fakeCipher()),
    send: guardedStreamSender(undefined, async (url, sentOptions) => {
      sent.push({ url, options: sentOptions, ids: bodyIds(sentOptions.body!) });
      return script.answer(sent.length);
    }),
    clock,
    log,
    timeScale: options.timeScale ?? 1,
  });
  return { handler, clock, streams, changes, audits, queued, sent, lines, script, fail };
}

/** The ids of an https batch's NDJSON body. */
function bodyIds(body: string): string[] {
  return body
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { id: string }).id);
}

/** A change as stream-health.ts's store writes it, with its conditions. */
function applyChange(
  streams: Map<string, AuditStreamRecord>,
  audits: AuditEntry[],
  changes: HealthChange[],
  id: string,
  change: HealthChange,
): boolean {
  const stream = streams.get(id);
  if (!stream) return false;
  changes.push(change);
  if (change.kind === 'delivered') {
    delete stream.failingSince;
    delete stream.lastError;
    stream.lastDeliveredAt = change.at;
  } else if (change.kind === 'failed') {
    stream.failingSince ??= change.at;
    stream.lastError = change.lastError;
  } else {
    if (stream.status !== 'active' || stream.failingSince !== change.failingSince) return false;
    Object.assign(stream, { status: 'disabled', lastError: change.lastError, revision: stream.revision + 1 });
    audits.push(change.audit);
  }
  return true;
}
