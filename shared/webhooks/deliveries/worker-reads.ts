import type { StoredDelivery } from './delivery-store.ts';
import type { EndpointFanoutStore } from '../endpoints/endpoint-pipeline-store.ts';
import type { StoredEndpoint } from '../endpoints/endpoint-store.ts';
import type { DeliveryMessage } from './delivery-message.ts';
import type { WorkerDeps } from './worker.ts';

/**
 * Distinct endpoints of one workspace from which an invocation reads them all with one Query instead of one GetItem
 * each: a Query is billed per 4 KB of what it reads (every endpoint of the workspace, at most 20, typically under
 * 1 KB each: 4 or 5 read units at most), a GetItem one unit per endpoint. An event to 10 endpoints is 10 messages of
 * one batch: 2 or 3 units instead of 10.
 */
export const QUERY_ENDPOINTS_FROM = 5;

type ReadStore = Pick<WorkerDeps['store'], 'getDelivery' | 'getEndpoint'> & Pick<EndpointFanoutStore, 'listEndpoints'>;

/**
 * The reads an invocation's attempts start with, made for the whole batch first: each message's delivery
 * (eventually consistently, as the worker's first read is), then the endpoints they name, by workspace, with one
 * consistent Query where a workspace has `QUERY_ENDPOINTS_FROM` of them in the batch, else one consistent GetItem
 * each. Answers the reads for the worker: a first eventually consistent read of a delivery and every read of an
 * endpoint come from here; anything else (the worker's consistent second look) goes to the table.
 */
export async function readAhead(
  store: ReadStore,
  messages: readonly DeliveryMessage[],
): Promise<Pick<WorkerDeps['store'], 'getDelivery' | 'getEndpoint'>> {
  const key = (workspaceId: string, id: string) => `${workspaceId}/${id}`;
  // Each read on its own: one that fails is its message's failure, as it would have been had the worker made it.
  const deliveries = new Map<string, Promise<StoredDelivery | undefined>>();
  for (const m of messages)
    deliveries.set(key(m.workspaceId, m.deliveryId), store.getDelivery(m.workspaceId, m.deliveryId, { consistent: false }));
  const named = new Map<string, Set<string>>();
  for (const m of messages) {
    const found = await deliveries.get(key(m.workspaceId, m.deliveryId))!.catch(() => undefined);
    if (found) named.set(m.workspaceId, (named.get(m.workspaceId) ?? new Set()).add(found.endpointId));
  }
  const endpoints = new Map<string, Promise<StoredEndpoint | undefined>>();
  for (const [workspaceId, ids] of named) {
    if (ids.size < QUERY_ENDPOINTS_FROM) {
      for (const id of ids) endpoints.set(key(workspaceId, id), store.getEndpoint(workspaceId, id));
      continue;
    }
    const all = store.listEndpoints(workspaceId).then((list) => new Map(list.map((endpoint) => [endpoint.id, endpoint])));
    for (const id of ids)
      endpoints.set(
        key(workspaceId, id),
        all.then((byId) => byId.get(id)),
      );
  }
  for (const read of [...deliveries.values(), ...endpoints.values()]) read.catch(() => undefined);
  return {
    getDelivery(workspaceId, deliveryId, options) {
      const ahead = options?.consistent === false ? deliveries.get(key(workspaceId, deliveryId)) : undefined;
      return ahead ?? store.getDelivery(workspaceId, deliveryId, options);
    },
    getEndpoint(workspaceId, endpointId) {
      return endpoints.get(key(workspaceId, endpointId)) ?? store.getEndpoint(workspaceId, endpointId);
    },
  };
}
