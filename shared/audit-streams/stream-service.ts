import { assertMayManageAuditStreams } from '../access/index.ts';
import { type AuditEntry, auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { auditStreamCredentialContext } from '../platform/crypto/context.ts';
import type { Cipher, SealedValue } from '../platform/crypto/envelope.ts';
import { NotFoundError } from '../platform/errors.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';
import { newId } from '../platform/ids.ts';
import type { Principal } from '../platform/principal.ts';
import type { PageRequest } from '../platform/store/query.ts';
import { redactUrl } from '../webhooks/index.ts';
import type { DeliveryResult } from './delivery/stream-health.ts';
import type { AuditStreamRecord, StreamCredential } from './stream-records.ts';
import type { StreamInput, StreamPatch } from './stream-schemas.ts';
import type { AuditStreamStore, StreamChanges } from './stream-store.ts';
import { assertPatchFits, assertUrlAllowed, type Credentials, newTarget, patchedTarget, type UrlCheck } from './stream-targets.ts';

export interface AuditStreamServiceDeps {
  store: Pick<
    AuditStreamStore,
    'getAuditStream' | 'listAuditStreamPage' | 'createAuditStream' | 'updateAuditStream' | 'deleteAuditStream' | 'putStreamTestAudit'
  >;
  cipher: Pick<Cipher, 'encrypt'>;
  clock: Clock;
  checkUrl: UrlCheck;
  /**
   * Sends one entry to the stream's receiver at once (delivery/stream-test-send.ts); never throws for the receiver's
   * failure, whose reason names no url query nor header.
   */
  sendTest: (workspaceId: string, stream: AuditStreamRecord, entry: AuditEntry) => Promise<DeliveryResult>;
}

/**
 * A stream as the API answers it: its target, status and delivery health (read-only fields beside the contract's, null
 * until they happen), never a credential (the answer schemas keep to these too).
 */
export function auditStreamAnswerOf(stream: AuditStreamRecord) {
  const { id, status, createdAt } = stream;
  const health = {
    failingSince: stream.failingSince ?? null,
    lastDeliveredAt: stream.lastDeliveredAt ?? null,
    lastError: stream.lastError ?? null,
  };
  if (stream.type === 'datadog') return { id, type: stream.type, site: stream.site, status, createdAt, ...health };
  if (stream.type === 'splunk-hec') return { id, type: stream.type, url: stream.url, status, createdAt, ...health };
  const { url, headers, secretHint } = stream;
  return { id, type: stream.type, url, headers, secretHint, status, createdAt, ...health };
}

/** What every audit entry of a stream names: its type and where it delivers (a url without its query), never a credential. */
const streamMetadata = (stream: AuditStreamRecord) => ({
  auditStreamId: stream.id,
  type: stream.type,
  ...(stream.type === 'datadog' ? { site: stream.site } : { url: redactUrl(stream.url) }),
  ...(stream.type === 'https' && { headers: stream.headers }),
});

/**
 * Audit streams (decisions.md v1.4, "Audit streams and tamper evidence"), for admins: each method asks
 * `assertMayManageAuditStreams` first; another workspace's stream is NOT_FOUND, as an absent one. Every credential is
 * sealed apart under {workspaceId, auditStreamId, credential}; none is answered, logged or audited.
 */
export function makeAuditStreamService(deps: AuditStreamServiceDeps) {
  const { store, cipher, clock } = deps;
  const find = async (principal: Principal, streamId: string) => {
    const stream = await store.getAuditStream(principal.workspaceId, streamId);
    if (!stream) throw new NotFoundError(`audit stream ${streamId} was not found`);
    return stream;
  };
  const seal = async (workspaceId: string, streamId: string, credentials: Credentials) => {
    const entries = Object.entries(credentials) as [StreamCredential, string][];
    const sealed = await Promise.all(
      entries.map(
        async ([name, value]) => [name, await cipher.encrypt(value, auditStreamCredentialContext(workspaceId, streamId, name))] as const,
      ),
    );
    return Object.fromEntries(sealed) as Partial<Record<StreamCredential, SealedValue>>;
  };

  /** Makes an active stream; for https the answer is the only one that carries its signing secret. */
  async function create(principal: Principal, input: StreamInput) {
    assertMayManageAuditStreams(principal);
    if (input.type !== 'datadog') await assertUrlAllowed(input.url, deps.checkUrl);
    const { target, credentials } = newTarget(input);
    const now = clock.now();
    const id = newId('auditStream', now);
    const stream: AuditStreamRecord = {
      ...target,
      id,
      accountId: principal.accountId,
      status: 'active',
      sealed: await seal(principal.workspaceId, id, credentials),
      createdAt: iso(now),
      updatedAt: iso(now),
      revision: 1,
    };
    const answer = announceAnswer({
      ...auditStreamAnswerOf(stream),
      ...(credentials.secret !== undefined && { secret: credentials.secret }),
    });
    await store.createAuditStream(
      principal.workspaceId,
      stream,
      auditEntry(principal, 'audit_stream.create', id, streamMetadata(stream), now),
    );
    return answer;
  }

  /** The workspace's streams, newest first. */
  async function list(principal: Principal, page: PageRequest) {
    assertMayManageAuditStreams(principal);
    const found = await store.listAuditStreamPage(principal.workspaceId, page);
    return { ...found, items: found.items.map(auditStreamAnswerOf) };
  }

  async function get(principal: Principal, streamId: string) {
    assertMayManageAuditStreams(principal);
    return auditStreamAnswerOf(await find(principal, streamId));
  }

  /**
   * Changes what the stream's type has (url and headers, url and token, site and apiKey; a changed url through the
   * SSRF guard again) and its status: `disabled` stops it, `active` enables it again. The https signing secret never
   * changes here. Credentials given are sealed again; the audit entry names them changed, never their values.
   */
  async function update(principal: Principal, streamId: string, patch: StreamPatch) {
    assertMayManageAuditStreams(principal);
    const ws = principal.workspaceId;
    const current = await find(principal, streamId);
    assertPatchFits(current, patch);
    if (patch.url !== undefined && current.type !== 'datadog' && patch.url !== current.url)
      await assertUrlAllowed(patch.url, deps.checkUrl);
    const { fields, credentials, dropped } = patchedTarget(patch);
    const changes: StreamChanges = { ...fields, ...(patch.status !== undefined && { status: patch.status }) };
    // Enabling a stream gives it a new 3-day window: one disabled for failing would otherwise be disabled again by
    // its first failure after this.
    if (patch.status === 'active' && current.failingSince !== undefined) changes.failingSince = null;
    if (Object.keys(credentials).length > 0 || dropped.length > 0) {
      const kept = Object.entries(current.sealed).filter(([name]) => !dropped.includes(name as StreamCredential));
      changes.sealed = { ...Object.fromEntries(kept), ...(await seal(ws, streamId, credentials)) };
    }
    const now = clock.now();
    // A cleared failingSince is null here, which the answer shows as null too.
    const next = { ...current, ...changes, updatedAt: iso(now), revision: current.revision + 1 } as AuditStreamRecord;
    const changed = Object.keys(patch).filter((field) => patch[field as keyof StreamPatch] !== undefined);
    const metadata = { ...streamMetadata(next), changed, ...(patch.status !== undefined && { status: patch.status }) };
    const answer = announceAnswer(auditStreamAnswerOf(next));
    const audit = auditEntry(principal, 'audit_stream.update', streamId, metadata, now);
    await store.updateAuditStream(ws, streamId, current.revision, { ...changes, updatedAt: next.updatedAt }, audit);
    return answer;
  }

  /** Deletes the stream: nothing more is delivered to it. */
  async function remove(principal: Principal, streamId: string) {
    assertMayManageAuditStreams(principal);
    const stream = await find(principal, streamId);
    const answer = announceAnswer({ id: streamId, deleted: true as const });
    const audit = auditEntry(principal, 'audit_stream.delete', streamId, streamMetadata(stream), clock.now());
    await store.deleteAuditStream(principal.workspaceId, streamId, audit);
    return answer;
  }

  /**
   * Sends the stream one entry at once and answers how its receiver took it: the `audit_stream.test` entry this test
   * writes first (durable before it leaves, as every entry), so the receiver sees a real entry of the log; the
   * stream delivers it again later, and a receiver drops the repeat by its id. A disabled stream may be tested, to
   * check a receiver before enabling it again. The stream's health is left as it is.
   */
  async function test(principal: Principal, streamId: string) {
    assertMayManageAuditStreams(principal);
    const stream = await find(principal, streamId);
    const audit = auditEntry(principal, 'audit_stream.test', streamId, streamMetadata(stream), clock.now());
    await store.putStreamTestAudit(principal.workspaceId, audit);
    const result = await deps.sendTest(principal.workspaceId, stream, audit);
    if (result.ok) return { delivered: true, statusCode: result.statusCode ?? null, error: null };
    return { delivered: false, statusCode: result.statusCode, error: result.reason };
  }

  return { create, list, get, update, delete: remove, test };
}

export type AuditStreamService = ReturnType<typeof makeAuditStreamService>;
