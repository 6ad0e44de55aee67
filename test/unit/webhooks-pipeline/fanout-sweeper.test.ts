import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { StoredDelivery } from '../../../shared/store/deliveries.ts';
import { ENTITY } from '../../../shared/store/keys.ts';
import type { StoredEndpoint } from '../../../shared/store/webhooks.ts';
import { makeFanout } from '../../../shared/webhooks/fanout.ts';
import { makeSweeper } from '../../../shared/webhooks/sweeper.ts';
import { fakeClock, silentLog, WS } from '../support/fakes.ts';

function endpoint(id: string, events: string[], enabled = true): StoredEndpoint {
  return {
    id, url: 'https://hooks.example.com/', events, description: null, enabled, secretHint: '', createdAt: '', updatedAt: '', disabledAt: null,
    disabledReason: null, consecutiveFailures: 0, failingSince: null, accountId: 'acc_1', sealedSecret: { ciphertext: '', iv: '', tag: '', encryptedDataKey: '' },
  };
}

/** The stream record of an inserted audit entry, as Lambda hands it to the fan-out. */
function auditRecord(action: string, sequence: string): DynamoDBRecord {
  const image = {
    PK: `WS#${WS}#AUDIT`, SK: `aud_01JAAAAAAAAAAAAAAAAAAAAA${sequence}`, type: ENTITY.audit, workspaceId: WS, accountId: 'acc_1',
    id: `aud_01JAAAAAAAAAAAAAAAAAAAAA${sequence}`, action, actorSub: 'key_1', target: 'sec_1',
    metadata: { key: 'K', version: 2, projectId: 'proj_1', environmentId: 'env_1', credentialKind: 'api_key' }, createdAt: '2026-06-01T00:00:00.000Z',
  };
  return { eventName: 'INSERT', dynamodb: { SequenceNumber: sequence, NewImage: marshall(image) } } as unknown as DynamoDBRecord;
}

function fanoutWith(endpoints: StoredEndpoint[]) {
  const deliveries = new Map<string, StoredDelivery>();
  const queued: string[] = [];
  const fanout = makeFanout({
    store: {
      listEndpoints: async () => endpoints,
      async createDelivery(_ws, delivery) {
        if (deliveries.has(delivery.id)) return false;
        deliveries.set(delivery.id, delivery);
        return true;
      },
    },
    enqueue: async (message) => void queued.push(message.deliveryId),
    newToken: () => 'tok',
    log: silentLog,
  });
  return { fanout, deliveries, queued };
}

describe('stream fan-out', () => {
  it('makes one delivery per enabled endpoint subscribed to the event, none for a disabled or unsubscribed one', async () => {
    const { fanout, deliveries, queued } = fanoutWith([
      endpoint('we_sub', ['service.secret.rotate']),
      endpoint('we_off', ['service.secret.rotate'], false),
      endpoint('we_other', ['service.secret.delete']),
    ]);
    expect(await fanout([auditRecord('secret.rotate', '10')])).toEqual({ batchItemFailures: [] });
    expect([...deliveries.values()].map((d) => d.endpointId)).toEqual(['we_sub']);
    expect(queued).toHaveLength(1);
  });

  it('creates and queues nothing twice when the same stream batch comes again', async () => {
    const { fanout, deliveries, queued } = fanoutWith([endpoint('we_sub', ['service.secret.rotate'])]);
    await fanout([auditRecord('secret.rotate', '10')]);
    await fanout([auditRecord('secret.rotate', '10')]);
    expect([deliveries.size, queued.length]).toEqual([1, 1]);
  });

  it('ignores audit actions that have no event, and reports the first failing record for a retry', async () => {
    const { fanout, deliveries } = fanoutWith([endpoint('we_sub', ['service.secret.rotate'])]);
    await fanout([auditRecord('project.create', '10')]);
    expect(deliveries.size).toBe(0);
    const failing = makeFanout({ store: { listEndpoints: async () => { throw new Error('throttled'); }, createDelivery: async () => true }, enqueue: async () => undefined, newToken: () => 't', log: silentLog });
    expect(await failing([auditRecord('secret.rotate', '11'), auditRecord('secret.rotate', '12')])).toEqual({ batchItemFailures: [{ itemIdentifier: '11' }] });
  });
});

describe('sweeper', () => {
  it('re-queues a due delivery only when its token is still the one it saw, and finishes interrupted purges', async () => {
    // Prepare: two overdue deliveries, one of which moved on meanwhile (its requeue condition fails)
    const clock = fakeClock();
    const asked: string[] = [];
    const queued: { deliveryId: string; at: number }[] = [];
    const purged: string[] = [];
    const sweep = makeSweeper({
      store: {
        async dueDeliveries(before) {
          asked.push(before);
          return [{ workspaceId: WS, id: 'whd_lost', attemptToken: 't1' }, { workspaceId: WS, id: 'whd_moved', attemptToken: 't2' }];
        },
        requeue: async (_ws, id) => (id === 'whd_lost' ? ({} as StoredDelivery) : undefined),
        pendingPurges: async () => [{ workspaceId: WS, secretId: 'sec_gone' }],
        purgeSecretVersions: async (_ws, id) => (purged.push(id), 3),
      },
      enqueue: async (message, options) => void queued.push({ deliveryId: message.deliveryId, at: options.at }),
      clock,
      graceMs: 300_000,
    });
    // Act
    const result = await sweep();
    // Assess: the grace period sets what counts as overdue
    expect(result).toEqual({ requeued: 1, purged: 1 });
    expect(asked).toEqual([new Date(clock.now() - 300_000).toISOString()]);
    expect(queued).toEqual([{ deliveryId: 'whd_lost', at: clock.now() }]);
    expect(purged).toEqual(['sec_gone']);
  });
});
