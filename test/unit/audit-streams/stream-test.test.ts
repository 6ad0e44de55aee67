import { describe, expect, it } from 'vitest';
import { caught } from '../support/fakes.ts';
import { auditStreams, HTTPS, person, SPLUNK, stranger } from './support.ts';

/**
 * `POST /api/v1/audit-streams/{id}/test` in the service (decisions.md v1.4, "Audit streams and tamper evidence"): the
 * test's own entry is written before it is sent, the receiver's verdict answered, admins only, another workspace's
 * stream NOT_FOUND.
 */

const admin = person('admin');

describe('audit streams: a test send', () => {
  it("audits audit_stream.test first, sends that very entry to the stream, and answers the receiver's 2xx", async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, HTTPS);
    const answer = await t.service.test(admin, made.id);
    expect(answer).toEqual({ delivered: true, statusCode: 204, error: null });
    const entry = t.audits.at(-1)!;
    expect(entry).toMatchObject({ action: 'audit_stream.test', target: made.id, metadata: { auditStreamId: made.id, type: 'https' } });
    expect(t.tests).toEqual([{ workspaceId: 'ws_test', streamId: made.id, entryId: entry.id, auditedBefore: true }]);
  });

  it("answers a receiver's refusal as delivered false with its status and reason", async () => {
    const t = auditStreams({ testResult: { ok: false, statusCode: 403, reason: 'the receiver answered 403' } });
    const made = await t.service.create(admin, SPLUNK);
    expect(await t.service.test(admin, made.id)).toEqual({ delivered: false, statusCode: 403, error: 'the receiver answered 403' });
  });

  it('tests a disabled stream too, and leaves its status as it was', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, SPLUNK);
    await t.service.update(admin, made.id, { status: 'disabled' });
    expect((await t.service.test(admin, made.id)).delivered).toBe(true);
    expect((await t.service.get(admin, made.id)).status).toBe('disabled');
  });

  it('is FORBIDDEN to a developer and NOT_FOUND in another workspace, sending nothing and auditing nothing', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, SPLUNK);
    const audited = t.audits.length;
    expect((await caught(() => t.service.test(person('developer'), made.id))).code).toBe('FORBIDDEN');
    expect((await caught(() => t.service.test(stranger(), made.id))).code).toBe('NOT_FOUND');
    expect(t.tests).toEqual([]);
    expect(t.audits).toHaveLength(audited);
  });
});
