import type { DynamoDBRecord } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ENTITY } from '../platform/store/keys.ts';
import { entriesOfItem, type PackedFields } from './audit-packing.ts';
import type { AuditEntry } from './audit-store.ts';

/** An audit entry as the table's stream carries it: with the workspace it belongs to. */
export type StreamedAuditEntry = AuditEntry & { workspaceId: string };

/**
 * The audit entries a stream record inserted, if any: an item's own and those packed in it (audit-packing.ts).
 * Audit entries are the source of every event, sync push and audit stream message: each reads them from here.
 */
export function insertedAudits(record: DynamoDBRecord): StreamedAuditEntry[] {
  if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) return [];
  const item = unmarshall(record.dynamodb.NewImage as never);
  return item.type === ENTITY.audit ? entriesOfItem(item as StreamedAuditEntry & PackedFields) : [];
}
