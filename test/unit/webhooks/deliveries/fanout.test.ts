import type { DynamoDBRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { iso } from '../../../../shared/platform/clock.ts';
import { newId } from '../../../../shared/platform/ids.ts';
import type { StoredDelivery } from '../../../../shared/webhooks/deliveries/delivery-store.ts';
import { ENTITY, keys } from '../../../../shared/platform/store/keys.ts';
import type { StoredEndpoint } from '../../../../shared/webhooks/endpoints/endpoint-store.ts';
import { deliveryIdFor } from '../../../../shared/webhooks/deliveries/events.ts';
import { auditChangeOf, makeFanout, makeFanoutMetrics, type FanoutDeps } from '../../../../shared/webhooks/deliveries/fanout.ts';
import { AUDIT_CHANGE_METRIC } from '../../../../shared/platform/metrics-env.ts';
import { firstAttemptToken, type DeliveryMessage } from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import { fakeClock, fakeLogger, T0 } from '../../support/fakes.ts';
import { endpoint, WS } from '../pipeline-support.ts';

let sequence = 0;

/** The stream record of an inserted item (an audit entry unless `type` says otherwise). */
function inserted(item: Record<string, unknown>, eventName: 'INSERT' | 'MODIFY' = 'INSERT'): DynamoDBRecord {
  sequence++;
  return { eventName, dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }) as never, SequenceNumber: String(sequence) } };
}

/** A `secret.rotate` audit entry of workspace `ws_test` (an event-worthy action). */
function audit(overrides: Record<string, unknown> = {}) {
  return {
    type: ENTITY.audit,
    workspaceId: WS,
    id: newId('audit', T0),
    action: 'secret.rotate',
    actorSub: 'key_actor',
    target: 'sec_01',
    metadata: { key: 'DB_PASSWORD', version: 2, projectId: 'proj_01', environmentId: 'env_01', credentialKind: 'api_key' },
    createdAt: iso(T0),
    accountId: 'acc_test',
    ...overrides,
  };
}

/**
 * A fan-out over `endpoints`; `exists` lists delivery ids an earlier run already created and whose first attempt
 * started, `waiting` those it created but whose first message it never sent; SQS refuses messages of `refuse`.
 */
function harness(
  endpoints: StoredEndpoint[],
  options: { exists?: string[]; waiting?: string[]; failOn?: string; refuse?: string[]; sqsDown?: boolean } = {},
) {
  const created: StoredDelivery[] = [];
  const markedDue: { deliveryId: string; token: string }[] = [];
  const listed: string[] = [];
  const queue = { sent: [] as { message: DeliveryMessage }[], requests: 0 };
  const log = fakeLogger();
  const store: FanoutDeps['store'] = {
    async listEndpoints(workspaceId) {
      listed.push(workspaceId);
      return endpoints;
    },
    async createDelivery(_ws, d) {
      if (d.eventId === options.failOn) throw Object.assign(new Error('throttled'), { name: 'ServiceUnavailableError' });
      if (options.exists?.includes(d.id)) return false;
      if (options.waiting?.includes(d.id)) return true;
      created.push(d);
      return true;
    },
    async markDeliveryDue(_ws, deliveryId, token) {
      markedDue.push({ deliveryId, token });
      return true;
    },
  };
  const enqueueAll = async (messages: readonly DeliveryMessage[]) => {
    if (options.sqsDown) throw Object.assign(new Error('SQS unavailable'), { name: 'ServiceUnavailable' });
    queue.requests += Math.ceil(messages.length / 10);
    const refused = messages.flatMap((message, i) => (options.refuse?.includes(message.deliveryId) ? [i] : []));
    queue.sent.push(...messages.filter((_, i) => !refused.includes(i)).map((message) => ({ message })));
    return refused;
  };
  const changed = { count: 0 };
  const metrics: FanoutDeps['metrics'] = { auditEntryChanged: () => void changed.count++ };
  // No secret references here (dependent-events.test.ts covers them).
  const references: FanoutDeps['references'] = { dependentsOf: async () => [], pathOf: async () => undefined };
  const fanout = makeFanout({ store, enqueueAll, log, clock: fakeClock(), metrics, references });
  return { fanout, created, listed, queue, log, markedDue, changed, metrics, references };
}

const subscribed = (id: string, events = ['service.secret.rotate', 'service.webhook_endpoint.disabled']) => endpoint({ id, events });

describe('fan-out: who gets a delivery', () => {
  it('one pending delivery per enabled, subscribed endpoint, due at the audit time, queued under the token it was created with', async () => {
    // Prepare
    const h = harness([
      subscribed('we_01'),
      subscribed('we_02', ['service.secret.create']),
      endpoint({ id: 'we_03', enabled: false, events: ['service.secret.rotate'] }),
    ]);
    const entry = audit();
    // Act
    const result = await h.fanout([inserted(entry)]);
    // Assess
    expect(result).toEqual({ batchItemFailures: [] });
    const eventId = `evt_${entry.id.slice(4)}`;
    expect(h.created.map((d) => d.endpointId)).toEqual(['we_01']);
    expect(h.created[0]).toMatchObject({
      id: deliveryIdFor(eventId, 'we_01'),
      eventId,
      status: 'pending',
      attempts: 0,
      nextRetryAt: iso(T0),
      manual: false,
    });
    expect(h.created[0]!.attemptToken).toBe(firstAttemptToken(h.created[0]!.id));
    expect(h.queue.sent).toEqual([
      { message: { workspaceId: WS, deliveryId: h.created[0]!.id, attemptToken: h.created[0]!.attemptToken } },
    ]);
  });

  it('the endpoint-disabled event never goes to the endpoint it is about', async () => {
    const h = harness([subscribed('we_01'), subscribed('we_02')]);
    const entry = audit({
      action: 'webhook_endpoint.disabled',
      actorSub: 'system',
      target: 'we_01',
      metadata: { url: 'https://x', consecutiveFailures: 20 },
    });
    await h.fanout([inserted(entry)]);
    expect(h.created.map((d) => d.endpointId)).toEqual(['we_02']);
  });

  it('only inserted audit entries of event-worthy actions make deliveries', async () => {
    const h = harness([subscribed('we_01')]);
    await h.fanout([
      inserted(audit(), 'MODIFY'),
      inserted({ ...audit(), type: 'SecretHead' }),
      inserted(audit({ action: 'project.create' })),
      inserted(audit({ accountId: undefined })),
    ]);
    expect(h.created).toEqual([]);
    expect(h.listed).toEqual([]);
  });
});

describe('fan-out: idempotence and failures', () => {
  it('a delivery whose first attempt started is not queued again when its record is seen again', async () => {
    const entry = audit();
    const h = harness([subscribed('we_01')], { exists: [deliveryIdFor(`evt_${entry.id.slice(4)}`, 'we_01')] });
    await h.fanout([inserted(entry)]);
    expect(h.queue.sent).toEqual([]);
  });

  it('a delivery an interrupted run created but never queued is queued again, under the same first-attempt token', async () => {
    // Prepare: the earlier run created the delivery, then died before its message went out.
    const entry = audit();
    const deliveryId = deliveryIdFor(`evt_${entry.id.slice(4)}`, 'we_01');
    const h = harness([subscribed('we_01')], { waiting: [deliveryId] });
    // Act
    await h.fanout([inserted(entry)]);
    // Assess
    expect(h.queue.sent).toEqual([{ message: { workspaceId: WS, deliveryId, attemptToken: firstAttemptToken(deliveryId) } }]);
  });

  it('queues the messages of a batch ten to a request', async () => {
    const endpoints = Array.from({ length: 4 }, (_, i) => subscribed(`we_0${i}`));
    const h = harness(endpoints);
    await h.fanout(Array.from({ length: 6 }, () => inserted(audit())));
    expect(h.queue.sent).toHaveLength(24);
    expect(h.queue.requests).toBe(3);
  });

  it('a message SQS did not take makes Lambda retry from its record', async () => {
    // Prepare
    const entries = [audit(), audit(), audit()];
    const refused = deliveryIdFor(`evt_${entries[1]!.id.slice(4)}`, 'we_01');
    const h = harness([subscribed('we_01')], { refuse: [refused] });
    const records = entries.map((entry) => inserted(entry));
    // Act
    const result = await h.fanout(records);
    // Assess: the records before it are done; from it on, the retry queues again what still waits (see above).
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }] });
    expect(h.log.lines).toEqual([{ level: 'error', message: 'fan-out could not queue every delivery' }]);
    // The refused delivery goes to the sweeper too, under its first-attempt token, whatever the retry finds later.
    expect(h.markedDue).toEqual([{ deliveryId: refused, token: firstAttemptToken(refused) }]);
  });

  it('a batch SQS failed altogether is reported from its first record, and every delivery of it goes to the sweeper', async () => {
    const entries = [audit(), audit()];
    const h = harness([subscribed('we_01'), subscribed('we_02')], { sqsDown: true });
    const records = entries.map((entry) => inserted(entry));
    const result = await h.fanout(records);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber }] });
    expect(h.markedDue.map((m) => m.deliveryId).sort()).toEqual(h.created.map((d) => d.id).sort());
    expect(h.markedDue).toHaveLength(4);
  });

  it('a record that fails after some of its deliveries were written hands those to the sweeper', async () => {
    // Prepare: the second endpoint's put fails; the first one's delivery exists
    const entry = audit();
    const h = harness([subscribed('we_01'), subscribed('we_02')]);
    const failing = deliveryIdFor(`evt_${entry.id.slice(4)}`, 'we_02');
    const result = await makeFanout({
      store: {
        listEndpoints: async () => [subscribed('we_01'), subscribed('we_02')],
        createDelivery: async (_ws, d) => {
          if (d.id === failing) throw Object.assign(new Error('throttled'), { name: 'ServiceUnavailableError' });
          return true;
        },
        markDeliveryDue: async (_ws, deliveryId, token) => (h.markedDue.push({ deliveryId, token }), true),
      },
      enqueueAll: async () => [],
      log: h.log,
      clock: fakeClock(),
      metrics: h.metrics,
      references: h.references,
    })([inserted(entry)]);
    // Assess: the record is retried, and the delivery it wrote is in the sweeper's hands meanwhile
    expect(result.batchItemFailures).toHaveLength(1);
    const written = deliveryIdFor(`evt_${entry.id.slice(4)}`, 'we_01');
    expect(h.markedDue).toEqual([{ deliveryId: written, token: firstAttemptToken(written) }]);
  });

  it("reads a workspace's endpoints once per batch", async () => {
    const h = harness([subscribed('we_01')]);
    await h.fanout([inserted(audit()), inserted(audit()), inserted(audit())]);
    expect(h.listed).toEqual([WS]);
    expect(h.created).toHaveLength(3);
  });

  it('a failing record is reported and ends the batch there, so Lambda retries from it', async () => {
    // Prepare
    const [first, failing, after] = [audit(), audit(), audit()];
    const h = harness([subscribed('we_01')], { failOn: `evt_${failing.id.slice(4)}` });
    const records = [inserted(first), inserted(failing), inserted(after)];
    // Act
    const result = await h.fanout(records);
    // Assess
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }] });
    expect(h.created.map((d) => d.eventId)).toEqual([`evt_${first.id.slice(4)}`]);
    expect(h.log.lines).toEqual([{ level: 'error', message: 'fan-out failed for a stream record' }]);
  });
});

/** The stream record of a change to an existing item: its keys, its old image (and new one for a MODIFY), and who made it. */
function changed(old: Record<string, unknown>, eventName: 'MODIFY' | 'REMOVE', options: { byTtl?: boolean } = {}): DynamoDBRecord {
  sequence++;
  const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as never;
  const stored = { ...keys.audit(WS, old.id as string), ...old };
  return {
    eventName,
    dynamodb: {
      Keys: image({ PK: stored.PK, SK: stored.SK }),
      OldImage: image(stored),
      ...(eventName === 'MODIFY' && { NewImage: image({ ...stored, actorSub: 'usr_someone_else' }) }),
      SequenceNumber: String(sequence),
    },
    ...(options.byTtl && { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } }),
  };
}

/** A logger that keeps each line's attributes too, to see what a line carries. */
function attributeLogger() {
  const lines: { level: string; message: string; attributes: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (message: string, attributes: Record<string, unknown> = {}) =>
      void lines.push({ level, message, attributes });
  return { lines, log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as unknown as FanoutDeps['log'] };
}

describe('fan-out: audit entries changed on the table', () => {
  it('counts and logs an overwritten audit entry by its keys alone, and makes no delivery of it', async () => {
    // Prepare
    const h = harness([subscribed('we_01')]);
    const { lines, log } = attributeLogger();
    const entry = audit();
    const fanout = makeFanout({
      store: { listEndpoints: async () => [], createDelivery: async () => true, markDeliveryDue: async () => true },
      enqueueAll: async () => [],
      log,
      clock: fakeClock(),
      metrics: h.metrics,
      references: h.references,
    });
    const record = changed(entry, 'MODIFY');
    // Act
    const result = await fanout([record]);
    // Assess: reported once, the batch done (nothing to retry), and no value of the entry in the line
    expect(result).toEqual({ batchItemFailures: [] });
    expect(h.changed.count).toBe(1);
    expect(lines).toEqual([
      {
        level: 'error',
        message: 'audit entry changed on the table',
        attributes: {
          change: 'overwritten',
          partition: keys.audit(WS, entry.id).PK,
          auditId: entry.id,
          sequenceNumber: record.dynamodb!.SequenceNumber,
        },
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('DB_PASSWORD');
    expect(JSON.stringify(lines)).not.toContain('usr_someone_else');
  });

  it('counts a removed audit entry, but not one DynamoDB removed by TTL', async () => {
    const h = harness([subscribed('we_01')]);
    await h.fanout([changed(audit(), 'REMOVE', { byTtl: true })]);
    expect(h.changed.count).toBe(0);
    await h.fanout([changed(audit(), 'REMOVE')]);
    expect(h.changed.count).toBe(1);
    expect(h.created).toEqual([]);
  });

  it('tells overwritten from removed, and ignores inserts and every other item', () => {
    expect(auditChangeOf(changed(audit(), 'MODIFY'))).toBe('overwritten');
    expect(auditChangeOf(changed(audit(), 'REMOVE'))).toBe('removed');
    expect(auditChangeOf(inserted(audit()))).toBeUndefined();
    expect(auditChangeOf(changed({ ...audit(), type: ENTITY.delivery }, 'MODIFY'))).toBeUndefined();
    expect(auditChangeOf(changed({ ...audit(), type: ENTITY.secretHead }, 'REMOVE'))).toBeUndefined();
  });

  it('writes the metric the alarm reads, as one Embedded Metric Format document', () => {
    const written: string[] = [];
    makeFanoutMetrics((line) => written.push(line)).auditEntryChanged();
    expect(written).toHaveLength(1);
    const document = JSON.parse(written[0]!);
    expect(document._aws.CloudWatchMetrics).toEqual([
      { Namespace: AUDIT_CHANGE_METRIC.namespace, Dimensions: [['service']], Metrics: [{ Name: AUDIT_CHANGE_METRIC.name, Unit: 'Count' }] },
    ]);
    expect(document).toMatchObject({ service: AUDIT_CHANGE_METRIC.dimensions.service, [AUDIT_CHANGE_METRIC.name]: 1 });
  });
});

describe('fan-out: secrets that depend on a changed value', () => {
  const dependentB = { id: 'sec_B', key: 'B', projectId: 'proj_01', environmentId: 'env_01', currentVersion: 4, path: 'app/prod/B' };

  it('a value change makes one service.secret.rotate delivery per dependent, with via; a retry makes the same ids', async () => {
    // Prepare
    const h = harness([subscribed('we_01')]);
    const walked: string[][] = [];
    h.references.pathOf = async () => 'app/prod/DB_PASSWORD';
    h.references.dependentsOf = async (_ws, paths) => {
      walked.push([...paths]);
      return paths[0] === 'app/prod/DB_PASSWORD' ? [{ path: paths[0], dependent: dependentB }] : [];
    };
    const entry = audit();
    // Act
    await h.fanout([inserted(entry)]);
    await h.fanout([inserted(entry)]);
    // Assess
    const bodies = h.created.map((d) => JSON.parse(d.body) as { id: string; data: Record<string, unknown> });
    expect(bodies.map((b) => b.data.secretId)).toEqual(['sec_01', 'sec_B', 'sec_01', 'sec_B']);
    expect(bodies[1]!.data).toMatchObject({ via: 'sec_01', version: 4 });
    expect(bodies[3]!.id).toBe(bodies[1]!.id);
    expect(walked).toEqual([['app/prod/DB_PASSWORD'], ['app/prod/B'], ['app/prod/DB_PASSWORD'], ['app/prod/B']]);
  });

  it('reads no index when no enabled endpoint subscribes to service.secret.rotate', async () => {
    // Prepare
    const h = harness([subscribed('we_01', ['service.secret.create'])]);
    let reads = 0;
    h.references.pathOf = async () => (reads++, 'app/prod/DB_PASSWORD');
    // Act
    await h.fanout([inserted(audit())]);
    // Assess
    expect(reads).toBe(0);
  });
});
