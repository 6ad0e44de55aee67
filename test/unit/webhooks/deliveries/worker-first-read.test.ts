import { describe, expect, it } from 'vitest';
import { delivery, endpoint, workerHarness, WS } from '../pipeline-support.ts';

const message = { workspaceId: WS, deliveryId: 'whd_01', attemptToken: 'tok-1' };

describe('worker: how it reads the delivery', () => {
  it('reads it eventually consistently first, and sends on that read when the message may start its attempt', async () => {
    // Prepare
    const h = workerHarness({ deliveries: [delivery()], endpoints: [endpoint()] });
    const reads: (boolean | undefined)[] = [];
    const read = h.store.getDelivery;
    h.store.getDelivery = (ws, id, options) => (reads.push(options?.consistent), read(ws, id, options));
    // Act
    const outcome = await h.work(message);
    // Assess
    expect(outcome).toBe('success');
    expect(reads).toEqual([false]);
  });

  it('reads it again consistently before dropping the message: a delivery just made may not show in the first read', async () => {
    // Prepare: the eventually consistent read does not see the delivery yet
    const h = workerHarness({ deliveries: [delivery()], endpoints: [endpoint()] });
    const reads: (boolean | undefined)[] = [];
    const read = h.store.getDelivery;
    h.store.getDelivery = async (ws, id, options) => (
      reads.push(options?.consistent), options?.consistent === false ? undefined : read(ws, id, options)
    );
    // Act
    const outcome = await h.work(message);
    // Assess: sent once, after the second read
    expect(outcome).toBe('success');
    expect(reads).toEqual([false, undefined]);
    expect(h.requests).toHaveLength(1);
  });

  it('a first read that shows an older token is read again: the token the message carries is the current one', async () => {
    const h = workerHarness({ deliveries: [delivery()], endpoints: [endpoint()] });
    const read = h.store.getDelivery;
    h.store.getDelivery = async (ws, id, options) => {
      const current = await read(ws, id, options);
      return options?.consistent === false ? current && { ...current, attemptToken: 'tok-0' } : current;
    };
    expect(await h.work(message)).toBe('success');
  });
});
