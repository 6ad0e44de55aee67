import { auditEntry, type AuditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { proposedValueContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { NotFoundError, ValidationError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { assertReferencesParse } from '../references/reference-resolving.ts';
import type { Principal } from '../platform/principal.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import type { SecretStore } from '../secrets/index.ts';
import { assertMayClose, permitChanges, permitKeys, visibleRequest, assertStatus } from './change-request-checks.ts';
import { makeMerge, type MergeDeps } from './change-request-merge.ts';
import {
  answerOf,
  requestMetadata,
  statusAt,
  untilUpdated,
  type ChangeRequestRecord,
  type ChangeRequestStatus,
  type StoredChange,
} from './change-request-records.ts';
import { makeReviews } from './change-request-reviews.ts';
import type { ChangeRequestStore } from './change-request-store.ts';

/** A change as a client proposes it: a value for the key, or its delete. */
export type ProposedChange = { key: string; value: string } | { key: string; delete: true };

export interface OpenInput {
  environmentId: string;
  title: string;
  description?: string | undefined;
  changes: ProposedChange[];
}

export interface ChangeRequestServiceDeps extends MergeDeps {
  store: MergeDeps['store'] &
    Pick<ChangeRequestStore, 'getRequestEnvironment' | 'putChangeRequest' | 'listChangeRequests'> &
    Pick<SecretStore, 'recordReveal'>;
  cipher: Cipher;
  clock: Clock;
  /** The reveal limits a proposed value's reveal counts against, as any reveal. */
  revealLimit: { perMinute: number; workspacePerMinute: number };
}

/**
 * Change requests (decisions.md v1.4): proposed changes to an environment's secrets, reviewed by another identity and
 * merged in one transaction. Each method asks the caller's policy first (change-request-checks.ts).
 */
export function makeChangeRequestService(deps: ChangeRequestServiceDeps) {
  const { store, cipher, clock } = deps;
  const find = async (principal: Principal, id: string) =>
    visibleRequest(principal, await store.getChangeRequest(principal.workspaceId, id), id);
  const audit = (
    principal: Principal,
    action: 'change_request.open' | 'change_request.close',
    record: ChangeRequestRecord,
    now: number,
  ): AuditEntry => auditEntry(principal, action, record.id, requestMetadata(record), now);

  /** Opens a request: `write` on each key (and `delete` on each it deletes); values sealed under the request's and key's context; each key's base version. */
  async function open(principal: Principal, input: OpenInput) {
    const ws = principal.workspaceId;
    const environment = await visibleRequest(principal, await store.getRequestEnvironment(ws, input.environmentId), input.environmentId);
    const keys = input.changes.map((change) => change.key);
    if (new Set(keys).size !== keys.length) throw new ValidationError('changes: each key may be proposed once');
    await permitChanges(
      principal,
      environment,
      input.changes.map((change) => ({ key: change.key, action: 'delete' in change ? ('delete' as const) : ('set' as const) })),
    );
    const now = clock.now();
    const id = newId('changeRequest', now);
    const changes: StoredChange[] = await Promise.all(
      input.changes.map(async (change) => {
        const current = await store.getEnvironmentSecret(ws, environment.environmentId, change.key);
        const baseVersion = current?.currentVersion ?? 0;
        if ('delete' in change) return { key: change.key, action: 'delete' as const, baseVersion };
        // Its references must parse, as a write's must (decisions.md v1.4): checked before anything is stored.
        if (change.value.includes('${')) assertReferencesParse(change.value, `changes[${input.changes.indexOf(change)}].value`);
        const sealed = await cipher.encrypt(change.value, proposedValueContext(ws, id, change.key));
        return { key: change.key, action: 'set' as const, baseVersion, sealed };
      }),
    );
    const { requiredApprovals: _required, ...place } = environment;
    const record: ChangeRequestRecord = {
      id,
      ...place,
      title: input.title,
      description: input.description ?? null,
      status: 'open',
      authorSub: principal.actorSub,
      changes,
      reviews: [],
      createdAt: iso(now),
      updatedAt: iso(now),
      revision: 1,
    };
    await store.putChangeRequest(ws, record, audit(principal, 'change_request.open', record, now));
    return answerOf(record, now);
  }

  async function get(principal: Principal, id: string) {
    return answerOf(await find(principal, id), clock.now());
  }

  /** An environment's requests, newest first, of one status when asked (`expired` included, as every read tells it). */
  async function list(principal: Principal, environmentId: string, page: PageRequest, status?: ChangeRequestStatus) {
    const environment = await store.getRequestEnvironment(principal.workspaceId, environmentId);
    await visibleRequest(principal, environment, environmentId);
    const now = clock.now();
    const keep = status === undefined ? undefined : (record: ChangeRequestRecord) => statusAt(record, now) === status;
    const found: Page<ChangeRequestRecord> = await store.listChangeRequests(principal.workspaceId, environmentId, page, keep);
    return { ...found, items: found.items.map((record) => answerOf(record, now)) };
  }

  /** A proposed value: `reveal` on its key, counted and audited `secret.reveal` (with changeRequestId) before it leaves. */
  async function reveal(principal: Principal, id: string, key: string) {
    const request = await find(principal, id);
    const change = request.changes.find((c) => c.key === key);
    if (!change?.sealed) throw new NotFoundError(`change request ${id} proposes no value for ${key}`);
    await permitKeys(principal, request, 'reveal', [key]);
    const ws = principal.workspaceId;
    const now = clock.now();
    const secret = await store.getEnvironmentSecret(ws, request.environmentId, key);
    const metadata = { key, projectId: request.projectId, environmentId: request.environmentId, version: null, changeRequestId: id };
    const entry = auditEntry(principal, 'secret.reveal', secret?.id ?? id, metadata, now);
    await store.recordReveal(ws, entry, { credentialId: principal.credentialId, ...deps.revealLimit, now });
    return { key, value: await cipher.decrypt(change.sealed, proposedValueContext(ws, id, key)) };
  }

  /** Closes a request: its author or an admin, while it is not merged, closed or expired. */
  async function close(principal: Principal, id: string) {
    return untilUpdated(async () => {
      const request = await find(principal, id);
      assertMayClose(principal, request);
      const now = clock.now();
      assertStatus(statusAt(request, now), ['open', 'approved', 'rejected'], 'closed');
      const next: ChangeRequestRecord = { ...request, status: 'closed', updatedAt: iso(now), revision: request.revision + 1 };
      await store.updateChangeRequest(principal.workspaceId, next, request, audit(principal, 'change_request.close', next, now));
      return answerOf(next, now);
    });
  }

  return { open, get, list, reveal, close, ...makeReviews(deps, find), ...makeMerge(deps, find) };
}

export type ChangeRequestService = ReturnType<typeof makeChangeRequestService>;
