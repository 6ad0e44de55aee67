import { pick } from '../../platform/store/items.ts';

/**
 * A webhook delivery's record and the rules of its attempt tokens: what the API shows, what the worker needs, and
 * who may start the next attempt. The delivery stores (delivery-store.ts and its siblings) read and write them.
 */

/** One attempt as the delivery log shows it. */
export interface AttemptEntry {
  attempt: number;
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export type DeliveryStatus = 'pending' | 'success' | 'failed';

/** A delivery as the API shows it (decisions.md). */
export interface Delivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  statusCode: number | null;
  lastError: string | null;
  nextRetryAt: string | null;
  createdAt: string;
  updatedAt: string;
  attemptLog: AttemptEntry[];
}

/** What the worker also needs: the exact body every attempt sends, and who may send the next attempt. */
export interface StoredDelivery extends Delivery {
  body: string;
  attemptToken: string | null;
  /** Set by a manual retry: that single attempt does not schedule further ones. */
  manual: boolean;
  /**
   * Its statistics are counted change by change from now on: a change came after its bucket's cutoff and left its
   * state at the cutoff on it for the rollup (shared/webhooks/stats/delivery-stats-store.ts). Absent on records not read back.
   */
  lateCounted?: boolean;
}

const FIELDS: readonly (keyof Delivery)[] = [
  'id',
  'endpointId',
  'eventId',
  'eventType',
  'status',
  'attempts',
  'statusCode',
  'lastError',
  'nextRetryAt',
  'createdAt',
  'updatedAt',
  'attemptLog',
];

/** Attempt tokens of attempts in flight start with this; queued messages never carry one. */
export const CLAIM_PREFIX = 'claim-';

/**
 * The claim an attempt holds while in flight: it names the message token it was made from, so the same message,
 * redelivered by SQS after its worker died, can take the attempt over (see `claimAttempt`).
 */
export function claimOf(token: string, random: string): string {
  return `${CLAIM_PREFIX}${token}.${random}`;
}

/**
 * How old a claim must be before the message it was made from may take it over: twice the worker's timeout, so the
 * worker that made it has certainly stopped. (SQS shows that message again only after its visibility timeout,
 * six times the worker's timeout.)
 */
export const CLAIM_LEASE_MS = 60_000;

/** True when `delivery` waits for the attempt that `token` names, or that attempt's worker died holding its claim. */
export function mayStartAttempt(
  delivery: Pick<StoredDelivery, 'status' | 'attemptToken' | 'updatedAt'>,
  token: string,
  now: number,
): boolean {
  if (delivery.status !== 'pending' || delivery.attemptToken === null) return false;
  if (delivery.attemptToken === token) return true;
  return delivery.attemptToken.startsWith(claimOf(token, '')) && Date.parse(delivery.updatedAt) < now - CLAIM_LEASE_MS;
}

/** Deliveries and their attempts are kept 30 days (api.md section 8), then DynamoDB TTL removes them. */
export const DELIVERY_RETENTION_SECONDS = 30 * 86_400;

export const toDelivery = (item: Record<string, unknown>): Delivery => ({
  ...pick<Delivery>(item, FIELDS)!,
  attemptLog: (item.attemptLog as AttemptEntry[]) ?? [],
});
export const toStored = (item: Record<string, unknown> | undefined): StoredDelivery | undefined =>
  item && {
    ...toDelivery(item),
    body: item.body as string,
    attemptToken: (item.attemptToken as string) ?? null,
    manual: item.manual === true,
    lateCounted: item.rollupStatus !== undefined,
  };

/** A delivery as the API shows it: every attempt, never its body, attempt token, retry flag or how it is counted. */
export function deliveryView(delivery: StoredDelivery): Delivery {
  const { body: _body, attemptToken: _token, manual: _manual, lateCounted: _late, ...view } = delivery;
  return view;
}
