import { iso } from '../../../shared/platform/clock.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import {
  CLAIM_PREFIX,
  mayStartAttempt,
  type AttemptEntry,
  type StoredDelivery,
} from '../../../shared/webhooks/deliveries/delivery-store.ts';
import type { StatsChange } from '../../../shared/webhooks/stats/delivery-stats-store.ts';
import type { WorkerBatchDeps } from '../../../shared/webhooks/deliveries/worker-batch.ts';
import type { StoredEndpoint } from '../../../shared/webhooks/endpoints/endpoint-store.ts';
import type { AttemptResult } from '../../../shared/webhooks/deliveries/sender.ts';
import { makeWorker } from '../../../shared/webhooks/deliveries/worker.ts';
import { fakeCipher, fakeClock, fakeLogger, fakeMetrics, fakeQueue, sealedFor, T0 } from '../support/fakes.ts';

/**
 * An in-memory model of the delivery and endpoint items for the worker and sweeper tests. Each write keeps the
 * condition the real store puts on it (the attempt token must match, a claimed attempt is not failed under its
 * holder, only an enabled endpoint is switched off), so a race can be staged by changing an item between two steps.
 */

export const WS = 'ws_test';
export const SIGNING_SECRET = 'whsec_unit-test-signing-secret';

/** An enabled endpoint with a clean record, its signing secret sealed under its own context. */
export function endpoint(overrides: Partial<StoredEndpoint> = {}): StoredEndpoint {
  const id = overrides.id ?? 'we_01';
  return {
    id,
    url: 'https://hooks.example.com/in',
    events: ['service.secret.create'],
    description: null,
    enabled: true,
    secretHint: 'whsec_…cret',
    createdAt: iso(T0),
    updatedAt: iso(T0),
    disabledAt: null,
    disabledReason: null,
    consecutiveFailures: 0,
    failingSince: null,
    accountId: 'acc_test',
    sealedSecret: sealedFor(SIGNING_SECRET, { workspaceId: WS, endpointId: id }),
    ...overrides,
  };
}

/** A pending delivery to `we_01` waiting for the message that carries `tok-1`. */
export function delivery(overrides: Partial<StoredDelivery> = {}): StoredDelivery {
  return {
    id: 'whd_01',
    endpointId: 'we_01',
    eventId: 'evt_01',
    eventType: 'service.secret.create',
    status: 'pending',
    attempts: 0,
    statusCode: null,
    lastError: null,
    nextRetryAt: iso(T0),
    createdAt: iso(T0),
    updatedAt: iso(T0),
    attemptLog: [],
    body: '{"id":"evt_01"}',
    attemptToken: 'tok-1',
    manual: false,
    ...overrides,
  };
}

type Outcome = { status: 'success' | 'failed' } | { status: 'pending'; nextRetryAt: string; attemptToken: string };

/** The model: `deliveries` and `endpoints` by id, every audit entry written, and which methods were called. */
export function memoryStore(seed: { deliveries?: StoredDelivery[]; endpoints?: StoredEndpoint[] } = {}) {
  const deliveries = new Map((seed.deliveries ?? []).map((d) => [d.id, structuredClone(d)]));
  const endpoints = new Map((seed.endpoints ?? []).map((e) => [e.id, structuredClone(e)]));
  const audits: AuditEntry[] = [];
  const calls: string[] = [];
  /** Every change of the endpoints' statistics, in order. */
  const stats: { endpointId: string; createdAt: string; change: StatsChange }[] = [];
  const copy = <T>(value: T | undefined) => (value === undefined ? undefined : structuredClone(value));
  const finish = (d: StoredDelivery) => Object.assign(d, { nextRetryAt: null, attemptToken: null, manual: false });

  const store: WorkerBatchDeps['store'] = {
    async getDelivery(_ws, id) {
      return copy(deliveries.get(id));
    },
    async listEndpoints() {
      calls.push('listEndpoints');
      return [...endpoints.values()].map((e) => copy(e)!);
    },
    async getEndpoint(_ws, id) {
      return copy(endpoints.get(id));
    },
    async claimAttempt(_ws, id, token, claim, now) {
      calls.push('claimAttempt');
      const d = deliveries.get(id);
      if (!d || !mayStartAttempt(d, token, Date.parse(now))) return undefined;
      return copy(Object.assign(d, { attemptToken: claim, nextRetryAt: now, updatedAt: now }));
    },
    async recordAttempt(_ws, id, claim, entry: AttemptEntry, outcome: Outcome) {
      calls.push(`recordAttempt:${outcome.status}`);
      const d = deliveries.get(id);
      if (!d || d.attemptToken !== claim) return undefined;
      Object.assign(d, {
        status: outcome.status,
        attempts: d.attempts + 1,
        statusCode: entry.statusCode,
        lastError: entry.error,
        updatedAt: entry.at,
      });
      d.attemptLog.push(entry);
      if (outcome.status === 'pending') Object.assign(d, { nextRetryAt: outcome.nextRetryAt, attemptToken: outcome.attemptToken });
      else finish(d);
      return copy(d);
    },
    async failPending(_ws, id, reason, now, by) {
      calls.push(`failPending:${id}`);
      const d = deliveries.get(id);
      if (!d || d.status !== 'pending') return undefined;
      // A claim blocks it, unless the worker failing it holds the message whose worker died with that claim.
      if (d.attemptToken?.startsWith(CLAIM_PREFIX) && !(by && mayStartAttempt(d, by.messageToken, Date.parse(now)))) return undefined;
      return copy(finish(Object.assign(d, { status: 'failed' as const, lastError: reason, updatedAt: now })));
    },
    async recordEndpointFailure(_ws, id, now) {
      const e = endpoints.get(id);
      if (!e) return undefined;
      return copy(Object.assign(e, { consecutiveFailures: e.consecutiveFailures + 1, failingSince: e.failingSince ?? now }));
    },
    async recordEndpointSuccess(_ws, id) {
      calls.push('recordEndpointSuccess');
      const e = endpoints.get(id);
      if (e) Object.assign(e, { consecutiveFailures: 0, failingSince: null });
    },
    async autoDisableEndpoint(_ws, id, disabledAt, reason, audit) {
      calls.push('autoDisableEndpoint');
      const e = endpoints.get(id);
      if (!e?.enabled) return false;
      Object.assign(e, { enabled: false, disabledAt, disabledReason: reason, updatedAt: disabledAt });
      audits.push(audit);
      return true;
    },
    async pendingDeliveryIds(endpointId) {
      return [...deliveries.values()].filter((d) => d.endpointId === endpointId && d.status === 'pending').map((d) => d.id);
    },
    async recordDeliveryStats(_ws, endpointId, createdAt, change) {
      calls.push('recordDeliveryStats');
      stats.push({ endpointId, createdAt, change });
    },
  };
  return { store, deliveries, endpoints, audits, calls, stats };
}

/** What the fake receiver answers: a 2xx, or a failure with the given status (null: no answer at all). */
export const answers = {
  ok: { ok: true, statusCode: 204, durationMs: 12, error: null },
  serverError: { ok: false, statusCode: 503, durationMs: 40, error: 'HTTP 503' },
} as const satisfies Record<string, AttemptResult>;

/** A worker over the in-memory model; `onSend` runs during the POST, where a test stages a concurrent change. */
export function workerHarness(
  seed: Parameters<typeof memoryStore>[0],
  options: { result?: AttemptResult; timeScale?: number; now?: number; onSend?: () => void } = {},
) {
  const model = memoryStore(seed);
  const clock = fakeClock(options.now ?? T0);
  const queue = fakeQueue();
  const metrics = fakeMetrics();
  const log = fakeLogger();
  const cipher = fakeCipher();
  const requests: { url: string; body: string; headers: Record<string, string> }[] = [];
  const work = makeWorker({
    store: model.store,
    cipher,
    clock,
    send: async (request) => {
      requests.push(request);
      options.onSend?.();
      return options.result ?? answers.ok;
    },
    enqueue: (message, at) => queue.enqueue(message, at),
    timeScale: options.timeScale ?? 1,
    metrics,
    log,
  });
  return { ...model, clock, queue, metrics, log, cipher, requests, work };
}
