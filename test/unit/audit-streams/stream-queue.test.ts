import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/audit/index.ts';
import {
  makeStreamQueue,
  MAX_MESSAGE_BYTES,
  parseStreamMessage,
  streamMessages,
} from '../../../shared/audit-streams/delivery/stream-queue.ts';

const sqs = mockClient(SQSClient);
beforeEach(() => sqs.reset());

const entry = (n: number, padding = 0): AuditEntry => ({
  id: `aud_${String(n).padStart(26, '0')}`,
  action: 'secret.reveal',
  actorSub: 'ak_1',
  target: `sec_${n}`,
  metadata: { pad: 'x'.repeat(padding) },
  createdAt: '2026-12-07T10:00:00.000Z',
});

describe('the audit stream queue', () => {
  it('parses a message it queued, and nothing else', () => {
    // Prepare
    const message = { workspaceId: 'ws_1', streamId: 'as_1', entries: [entry(1)], attempt: 2, notBefore: 5 };
    // Act, Assess
    expect(parseStreamMessage(JSON.stringify(message))).toEqual(message);
    for (const bad of [
      'not json',
      'null',
      JSON.stringify({ ...message, streamId: 7 }),
      JSON.stringify({ ...message, entries: 'x' }),
      JSON.stringify({ ...message, entries: [{ no: 'id' }] }),
      JSON.stringify({ ...message, attempt: 0 }),
      JSON.stringify({ ...message, attempt: 1.5 }),
      JSON.stringify({ ...message, notBefore: 'soon' }),
    ])
      expect(parseStreamMessage(bad)).toBeUndefined();
  });

  it(`cuts a stream's entries into messages of at most ${MAX_MESSAGE_BYTES} bytes of entries, in order`, () => {
    // Prepare: entries of about 10 KB, so 19 fit a message and the 20th begins the next
    const entries = Array.from({ length: 45 }, (_, i) => entry(i, 10_000));
    // Act
    const messages = streamMessages('ws_1', 'as_1', entries);
    // Assess
    expect(messages.map((m) => m.entries.length)).toEqual([19, 19, 7]);
    expect(messages.flatMap((m) => m.entries)).toEqual(entries);
    for (const m of messages) expect(Buffer.byteLength(JSON.stringify(m))).toBeLessThan(256 * 1024);
    expect(streamMessages('ws_1', 'as_1', [])).toEqual([]);
  });

  it('sends 10 messages a SendMessageBatch and answers the indexes SQS refused', async () => {
    // Prepare
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [{ Id: '3', SenderFault: false, Code: 'x' }] })
      .resolves({});
    const messages = Array.from({ length: 12 }, (_, i) => ({ workspaceId: 'ws_1', streamId: 'as_1', entries: [entry(i)], attempt: 1 }));
    // Act
    const refused = await makeStreamQueue({ sqs: new SQSClient({ region: 'us-east-1' }), queueUrl: 'q' }).enqueueAll(messages, 1200);
    // Assess
    const sent = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries!);
    expect(sent.map((batch) => batch.length)).toEqual([10, 2]);
    expect(sent.flat().every((e) => e.DelaySeconds === 900)).toBe(true);
    expect(refused).toEqual([3]);
  });
});
