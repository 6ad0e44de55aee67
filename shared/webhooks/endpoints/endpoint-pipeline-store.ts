import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditEntry, auditPut } from '../../audit/index.ts';
import { sendConditional, transact } from '../../platform/store/conditional.ts';
import { queryAll } from '../../platform/store/query.ts';
import type { Db } from '../../platform/store/send.ts';
import { keys, patterns } from '../../platform/store/keys.ts';
import { makeEndpointReader, toEndpoint, type StoredEndpoint } from './endpoint-store.ts';

/** Webhook endpoints as the pipeline uses them: the fan-out lists a workspace's, the worker keeps their streaks. */

/** What the stream fan-out does with endpoints: list a workspace's, the subscribers of its event. */
export function makeEndpointFanoutStore(db: Db) {
  return {
    /** The workspace's endpoints, newest first, read consistently. */
    async listEndpoints(workspaceId: string): Promise<StoredEndpoint[]> {
      const items = await queryAll<Record<string, unknown>>(db, patterns.webhookEndpointsByWorkspace(workspaceId), {
        consistent: true,
        newestFirst: true,
      });
      return items.map((item) => toEndpoint(item)!);
    },
  };
}

/** What the delivery worker does with endpoints: read one, keep its failure streak, switch it off for failing. */
export function makeEndpointWorkerStore(db: Db) {
  return {
    ...makeEndpointReader(db),

    /** Counts a failed attempt: the streak grows and `failingSince` is set by the first failure of a streak. */
    async recordEndpointFailure(workspaceId: string, endpointId: string, now: string): Promise<StoredEndpoint | undefined> {
      const out = await sendConditional<{ Attributes?: Record<string, unknown> }>(
        db,
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.webhookEndpoint(workspaceId, endpointId),
          UpdateExpression: 'ADD consecutiveFailures :one SET failingSince = if_not_exists(failingSince, :now)',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':one': 1, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      // The endpoint was deleted meanwhile: nothing to count.
      return toEndpoint(out?.Attributes);
    },

    /** A success ends the streak. */
    async recordEndpointSuccess(workspaceId: string, endpointId: string): Promise<void> {
      // An endpoint deleted meanwhile has no streak to end: a failed condition is fine.
      await sendConditional(
        db,
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.webhookEndpoint(workspaceId, endpointId),
          UpdateExpression: 'SET consecutiveFailures = :zero REMOVE failingSince',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      );
    },

    /**
     * Switches an enabled endpoint off for failing, with its `webhook_endpoint.disabled` audit entry (whose stream
     * record makes the fan-out tell the workspace's other endpoints). Answers false when it was already off.
     */
    async autoDisableEndpoint(
      workspaceId: string,
      endpointId: string,
      disabledAt: string,
      reason: string,
      audit: AuditEntry,
    ): Promise<boolean> {
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.webhookEndpoint(workspaceId, endpointId),
              UpdateExpression: 'SET enabled = :false, disabledAt = :at, disabledReason = :reason, updatedAt = :at',
              ConditionExpression: 'enabled = :true',
              ExpressionAttributeValues: { ':false': false, ':true': true, ':at': disabledAt, ':reason': reason },
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [0],
      );
      return failed === undefined;
    },
  };
}

export type EndpointFanoutStore = ReturnType<typeof makeEndpointFanoutStore>;
export type EndpointWorkerStore = ReturnType<typeof makeEndpointWorkerStore>;
