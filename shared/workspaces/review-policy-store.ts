import { type AuditEntry, auditPut } from '../audit/index.ts';
import { NotFoundError, ValidationError } from '../platform/errors.ts';
import { transact, type TransactItem } from '../platform/store/conditional.ts';
import { keys } from '../platform/store/keys.ts';
import type { Db } from '../platform/store/send.ts';

/**
 * An environment's review policy (decisions.md v1.4, "Change requests"), stored on the environment's items (by id,
 * which a write by key reads ahead, and by slug, which the AWS API's CreateSecret reads), and the workspace item's
 * set `reviewedEnvironments` of the environments that have one. The workspace item is read with every credential, so
 * a write by secret id (which cannot name the environment before it reads the secret) learns from it whether it
 * must read the environment at all: without a policy nothing more is read.
 */

/** What `PUT …/review-policy` stores: 1 to 5 approvals, and the access keys that may still write directly. */
export interface ReviewPolicy {
  requiredApprovals: number;
  bypass: string[];
}

/** The environment as the policy's writes need it: where its items are. */
type PolicyPlace = { id: string; projectId: string; slug: string };

/** The review policy of an item, if it has one (a stored item is never returned as is). */
export function reviewPolicyOf(item: Record<string, unknown> | undefined): ReviewPolicy | undefined {
  const policy = item?.reviewPolicy as ReviewPolicy | undefined;
  return policy && { requiredApprovals: policy.requiredApprovals, bypass: [...(policy.bypass ?? [])] };
}

/** The review policies' writes: each changes both environment items, the workspace's set and the audit log at once. */
export function makeReviewPolicyStore(db: Db) {
  const onEnvironment = (key: { PK: string; SK: string }, update: string, values?: Record<string, unknown>): TransactItem => ({
    Update: {
      TableName: db.tableName,
      Key: key,
      UpdateExpression: update,
      ConditionExpression: 'attribute_exists(PK)',
      ...(values && { ExpressionAttributeValues: values }),
    },
  });
  const onWorkspace = (workspaceId: string, update: string, environmentId: string): TransactItem => ({
    Update: {
      TableName: db.tableName,
      Key: keys.workspace(workspaceId),
      UpdateExpression: `${update} reviewedEnvironments :environment`,
      ExpressionAttributeValues: { ':environment': new Set([environmentId]) },
    },
  });
  const write = async (workspaceId: string, environment: PolicyPlace, items: TransactItem[], bypass: readonly string[] = []) => {
    // Each key `bypass` names must be a live key of this workspace when the policy lands (checked in the same
    // transaction, so a key revoked meanwhile cannot slip in): a typo would otherwise bypass nothing, silently.
    const checks = bypass.map((id) => liveKey(workspaceId, id));
    const checkedFrom = items.length;
    const handled = [0, 1, ...checks.map((_, i) => checkedFrom + i)];
    const failed = await transact(db, [...items, ...checks], handled);
    if (failed !== undefined && failed >= checkedFrom)
      throw new ValidationError(`bypass[${failed - checkedFrom}]: ${bypass[failed - checkedFrom]} is no live key of this workspace`);
    // The environment deleted in between (items 0 and 1): as for an unknown id.
    if (failed !== undefined) throw new NotFoundError(`environment ${environment.id} was not found`);
  };
  const liveKey = (workspaceId: string, id: string): TransactItem => ({
    ConditionCheck: {
      TableName: db.tableName,
      Key: id.startsWith('ak_') ? keys.accessKey(workspaceId, id) : keys.apiKey(workspaceId, id),
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(revokedAt)',
    },
  });

  return {
    /** Sets (or replaces) the environment's policy; VALIDATION_ERROR naming a `bypass` id that is no live key of the workspace. */
    async putReviewPolicy(workspaceId: string, environment: PolicyPlace, policy: ReviewPolicy, audit: AuditEntry): Promise<void> {
      const set = (key: { PK: string; SK: string }) => onEnvironment(key, 'SET reviewPolicy = :policy', { ':policy': policy });
      await write(
        workspaceId,
        environment,
        [
          set(keys.environment(workspaceId, environment.id)),
          set(keys.environmentSlug(workspaceId, environment.projectId, environment.slug)),
          onWorkspace(workspaceId, 'ADD', environment.id),
          auditPut(db, workspaceId, audit),
        ],
        policy.bypass,
      );
    },

    /** Removes the environment's policy. */
    async deleteReviewPolicy(workspaceId: string, environment: PolicyPlace, audit: AuditEntry): Promise<void> {
      const remove = (key: { PK: string; SK: string }) => onEnvironment(key, 'REMOVE reviewPolicy');
      await write(workspaceId, environment, [
        remove(keys.environment(workspaceId, environment.id)),
        remove(keys.environmentSlug(workspaceId, environment.projectId, environment.slug)),
        onWorkspace(workspaceId, 'DELETE', environment.id),
        auditPut(db, workspaceId, audit),
      ]);
    },
  };
}

export type ReviewPolicyStore = ReturnType<typeof makeReviewPolicyStore>;
