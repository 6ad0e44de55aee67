import { MAX_LEVELS, type Dependent, type ReferenceIndexStore } from '../../references/index.ts';
import { eventIdFor, type AuditRecord, type WebhookEvent } from './events.ts';

/**
 * Changes propagate (decisions.md v1.4, "Secret references"): a change of a secret's current value fires
 * `service.secret.rotate` for every secret whose resolved value depends on it, directly or not, with `data.via`
 * naming the changed secret. docs/references-wiring.md, 4.
 */

/** What the walk reads: the reverse index (a Query per path per level, one BatchGetItem of heads per level). */
export type DependentReads = Pick<ReferenceIndexStore, 'dependentsOf' | 'pathOf'>;

/** The audit actions that change a secret's current value (a label move of AWSCURRENT and a rollback audit `secret.rotate`). */
const VALUE_CHANGES: ReadonlySet<string> = new Set(['secret.create', 'secret.rotate', 'secret.delete', 'secret.restore']);

/** True for an audit record whose secret's dependents are told: one that changes its current value. */
export const changesCurrentValue = (audit: AuditRecord) => VALUE_CHANGES.has(audit.action);

/**
 * The secrets whose current value depends on the audit record's secret, level by level up to MAX_LEVELS (a
 * dependent further away could not resolve anyway), each once: a visited set stops cycles and the changed secret
 * itself. A secret whose project or environment is gone has no path left to be referenced by.
 */
export async function dependentsOfChange(reads: DependentReads, audit: AuditRecord): Promise<Dependent[]> {
  const { projectId, environmentId, key } = audit.metadata as { projectId?: string; environmentId?: string; key?: string };
  if (!projectId || !environmentId || !key) return [];
  const path = await reads.pathOf(audit.workspaceId, { projectId, environmentId, key });
  if (!path) return [];
  const visited = new Set([audit.target]);
  const found: Dependent[] = [];
  let frontier = [path];
  for (let level = 0; level < MAX_LEVELS && frontier.length > 0; level++) {
    const next = await reads.dependentsOf(audit.workspaceId, frontier, visited);
    frontier = [];
    for (const { dependent } of next) {
      if (visited.has(dependent.id)) continue;
      visited.add(dependent.id);
      found.push(dependent);
      frontier.push(dependent.path);
    }
  }
  return found;
}

/**
 * The `service.secret.rotate` event of one dependent: its usual rotate data (its current version) and `via`, the
 * changed secret. Its id derives from the audit id and the dependent's, so a stream retry makes the same event and
 * delivery ids and the conditional puts dedupe.
 */
export function dependentEvent(audit: AuditRecord, event: WebhookEvent, dependent: Dependent): WebhookEvent {
  return {
    id: eventIdFor(event.id, dependent.id),
    type: 'service.secret.rotate',
    account: event.account,
    occurredAt: event.occurredAt,
    data: {
      secretId: dependent.id,
      key: dependent.key,
      version: dependent.currentVersion,
      projectId: dependent.projectId,
      environmentId: dependent.environmentId,
      actorSub: audit.actorSub,
      via: audit.target,
    },
  };
}
