import { createHash, randomBytes } from 'node:crypto';
import { isId } from '../../platform/ids.ts';
import { counts, exactly, readBody } from './queue-body.ts';
import type { StatsRollupMessage } from '../stats/stats-message.ts';

export type { StatsRollupMessage } from '../stats/stats-message.ts';

/** What the delivery queue carries: which delivery to attempt, never its payload or the endpoint's secret. */
export interface DeliveryMessage {
  workspaceId: string;
  deliveryId: string;
  /** Names one scheduled attempt; the worker ignores a message whose token is no longer the delivery's current one. */
  attemptToken: string;
}

/**
 * The longest attempt token. `whd_` + ULID (30) + `-` + token must fit EventBridge Scheduler's 64-character names,
 * and the token must use only characters those names allow.
 */
export const MAX_ATTEMPT_TOKEN_LENGTH = 33;
const ATTEMPT_TOKEN = new RegExp(`^[0-9A-Za-z_-]{1,${MAX_ATTEMPT_TOKEN_LENGTH}}$`);
const KEYS = ['workspaceId', 'deliveryId', 'attemptToken'] as const;

/**
 * A fresh attempt token (12 base64url characters, well within the rule above): a queued message may start an
 * attempt only while the delivery still carries its token.
 */
export function newAttemptToken(): string {
  return randomBytes(9).toString('base64url');
}

/**
 * The token of a delivery's first attempt, derived from its id: a fan-out that sees its stream record again can queue
 * the same first message again (the worker lets only one of them through), so a message lost between the delivery's
 * creation and its send is sent by the stream retry, without a second token or a second send.
 */
export function firstAttemptToken(deliveryId: string): string {
  return createHash('sha256').update(`first-attempt\n${deliveryId}`).digest().subarray(0, 9).toString('base64url');
}

/** True for a well-formed message: exactly the three keys, each a well-formed value. */
function isDeliveryMessage(value: unknown): value is DeliveryMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== KEYS.length || !KEYS.every((key) => typeof record[key] === 'string')) return false;
  const { workspaceId, deliveryId, attemptToken } = record as unknown as DeliveryMessage;
  return isId('workspace', workspaceId) && isId('delivery', deliveryId) && ATTEMPT_TOKEN.test(attemptToken);
}

/** What the queue carries to run one step of a recovery of failed deliveries (named by its audit entry's id). */
export interface RecoveryMessage {
  workspaceId: string;
  recoveryId: string;
  /** The step the recovery must be at for this message to move it on. */
  step: number;
}

const RECOVERY_KEYS = ['workspaceId', 'recoveryId', 'step'] as const;

/** True for a well-formed recovery message: exactly its three keys, each well formed. */
function isRecoveryMessage(value: unknown): value is RecoveryMessage {
  const record = exactly(value, RECOVERY_KEYS);
  return !!record && counts(record.workspaceId, record.step) && typeof record.recoveryId === 'string' && isId('audit', record.recoveryId);
}

/** A queue message: a delivery attempt, a step of a recovery, or a statistics rollup. */
export type QueueMessage =
  | { kind: 'delivery'; message: DeliveryMessage }
  | { kind: 'recovery'; message: RecoveryMessage }
  | { kind: 'rollup'; message: StatsRollupMessage };

/**
 * Reads a queue message body strictly: JSON with exactly `workspaceId` (`ws_`), `deliveryId` (`whd_`) and
 * `attemptToken`, or exactly `workspaceId`, `recoveryId` (`aud_`) and `step`, nothing else (a statistics rollup's
 * message is read by `parseStatsRollupMessage`, stats-message.ts). Anything else answers
 * undefined, so the worker can drop it rather than retry it.
 */
export function parseQueueMessage(body: string): QueueMessage | undefined {
  const value = readBody(body);
  if (isDeliveryMessage(value))
    return {
      kind: 'delivery',
      message: { workspaceId: value.workspaceId, deliveryId: value.deliveryId, attemptToken: value.attemptToken },
    };
  if (isRecoveryMessage(value))
    return { kind: 'recovery', message: { workspaceId: value.workspaceId, recoveryId: value.recoveryId, step: value.step } };
  return undefined;
}

/** A delivery attempt's message, or undefined for anything else (see `parseQueueMessage`). */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  const parsed = parseQueueMessage(body);
  return parsed?.kind === 'delivery' ? parsed.message : undefined;
}

/** The body of a recovery step's message, keys always in the same order. */
export function formatRecoveryMessage(message: RecoveryMessage): string {
  if (!isRecoveryMessage(message)) throw new Error('Invalid recovery message: expected ws_ and aud_ ids and a step');
  return JSON.stringify({ workspaceId: message.workspaceId, recoveryId: message.recoveryId, step: message.step });
}

/** The message body, keys always in the same order. */
export function formatDeliveryMessage(message: DeliveryMessage): string {
  if (!isDeliveryMessage(message)) throw new Error('Invalid delivery message: expected ws_ and whd_ ids and a short attempt token');
  return JSON.stringify({ workspaceId: message.workspaceId, deliveryId: message.deliveryId, attemptToken: message.attemptToken });
}
