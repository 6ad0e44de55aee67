import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Db, Page, Pager } from './dynamo.ts';
import { ENTITY, keys, patterns } from './keys.ts';
import { pick } from './items.ts';

/** An audit entry as api.md section 2 shows it. */
export interface AuditEntry {
  id: string;
  action: string;
  actorSub: string;
  target: string;
  metadata: Record<string, unknown>;
  createdAt: string;
}

export const AUDIT_FIELDS: readonly (keyof AuditEntry)[] = ['id', 'action', 'actorSub', 'target', 'metadata', 'createdAt'];

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The Put that records an audit entry inside the same transaction as the change it describes. */
export function auditPut(db: Db, workspaceId: string, entry: AuditEntry): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: { ...keys.audit(workspaceId, entry.id), type: ENTITY.audit, workspaceId, ...entry },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** Reading the audit log. */
export function makeAuditStore(db: Db, pager: Pager) {
  return {
    async listAudit(workspaceId: string, page: { limit: number; cursor?: string | undefined }): Promise<Page<AuditEntry>> {
      const result = await pager.queryPage<Record<string, unknown>>({
        scope: `audit:${workspaceId}`,
        ...patterns.auditByWorkspace(workspaceId),
        ...page,
      });
      return { ...result, items: result.items.map((item) => pick<AuditEntry>(item, AUDIT_FIELDS)!) };
    },
  };
}
