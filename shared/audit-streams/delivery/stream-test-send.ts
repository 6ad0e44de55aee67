import type { AuditEntry } from '../../audit/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Cipher } from '../../platform/crypto/envelope.ts';
import type { AuditStreamRecord } from '../stream-records.ts';
import { streamRequest } from './stream-formats.ts';
import { type DeliveryResult, safeReason } from './stream-health.ts';
import { streamOpener } from './stream-open.ts';
import { guardedStreamSender, type GuardedTransport } from './stream-sender.ts';

/**
 * `POST /api/v1/audit-streams/{id}/test`'s send: one entry to the stream's receiver at once, in the stream's own format,
 * signed and sent through the SSRF guard as the worker sends a batch, with the worker's 10-second deadline. Loaded by
 * the service's wiring on the first test (stream-wiring.ts), so the routes' other requests carry none of the delivery.
 */
export function streamTestSender(deps: {
  cipher: Pick<Cipher, 'decrypt'>;
  allowPrivateCidrs: string | undefined;
  clock: Clock;
  transport?: GuardedTransport;
}) {
  const open = streamOpener(deps.cipher);
  const send = guardedStreamSender(deps.allowPrivateCidrs, deps.transport);
  return async (workspaceId: string, stream: AuditStreamRecord, entry: AuditEntry): Promise<DeliveryResult> => {
    const result = await send(streamRequest(await open(workspaceId, stream), [entry], deps.clock.now()));
    // As the stream's lastError: a url's query cut, the reason kept short.
    return result.ok ? result : { ...result, reason: safeReason(result.reason) };
  };
}
