import { describe, expect, it } from 'vitest';
import { caught } from '../support/fakes.ts';
import { auditStreams, DATADOG, HEADER_VALUE, HTTPS, person, SPLUNK } from './support.ts';

const admin = person('admin');

describe('audit streams: PATCH', () => {
  it('disables and enables a stream again (status), audited with the changed field', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, DATADOG);
    expect((await t.service.update(admin, made.id, { status: 'disabled' })).status).toBe('disabled');
    expect((await t.service.update(admin, made.id, { status: 'active' })).status).toBe('active');
    expect(t.audits.slice(1).map((a) => [a.action, a.metadata.changed, a.metadata.status])).toEqual([
      ['audit_stream.update', ['status'], 'disabled'],
      ['audit_stream.update', ['status'], 'active'],
    ]);
    expect(t.stored.get(made.id)!.revision).toBe(3);
  });

  it('enabling a stream disabled for failing clears failingSince, so its first failure after does not disable it again', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, DATADOG);
    const lastError = { statusCode: 503, reason: 'receiver answered 503', at: '2026-03-01T10:00:00.000Z' };
    Object.assign(t.stored.get(made.id)!, { status: 'disabled', failingSince: '2026-02-26T10:00:00.000Z', lastError });
    const answer = await t.service.update(admin, made.id, { status: 'active' });
    expect(answer).toMatchObject({ status: 'active', failingSince: null, lastError });
    expect(t.stored.get(made.id)).not.toHaveProperty('failingSince');
    expect(t.stored.get(made.id)!.lastError).toEqual(lastError);
  });

  it('seals a new token again under its name and audits that it changed, never the token', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, SPLUNK);
    const before = t.stored.get(made.id)!.sealed.token!;
    await t.service.update(admin, made.id, { token: 'NEW-splunk-token-42' });
    expect(t.stored.get(made.id)!.sealed.token).not.toEqual(before);
    expect(t.cipher.encrypted.at(-1)).toEqual({ workspaceId: 'ws_test', auditStreamId: made.id, credential: 'token' });
    expect(t.audits.at(-1)!.metadata.changed).toEqual(['token']);
    expect(JSON.stringify(t.audits)).not.toContain('NEW-splunk-token-42');
  });

  it('replaces the headers (names shown, values sealed), and null removes them, keeping the signing secret', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, HTTPS);
    const secret = t.stored.get(made.id)!.sealed.secret;
    const replaced = await t.service.update(admin, made.id, { headers: { 'X-Key': 'v-2' } });
    expect(replaced).toMatchObject({ headers: ['X-Key'], secretHint: (made as { secretHint: string }).secretHint });
    expect(t.stored.get(made.id)!.sealed.secret).toEqual(secret);
    const removed = await t.service.update(admin, made.id, { headers: null });
    expect(removed).toMatchObject({ headers: [] });
    expect(Object.keys(t.stored.get(made.id)!.sealed)).toEqual(['secret']);
    expect(JSON.stringify(t.audits)).not.toMatch(new RegExp(`${HEADER_VALUE}|v-2`));
  });

  it('checks a changed url with the SSRF guard; the same url is not looked up again', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, SPLUNK);
    await t.service.update(admin, made.id, { url: SPLUNK.url, status: 'disabled' });
    await t.service.update(admin, made.id, { url: 'https://other.example/collector' });
    expect(t.checkedUrls).toEqual([SPLUNK.url, 'https://other.example/collector']);
    expect((await t.service.get(admin, made.id)) as { url: string }).toMatchObject({ url: 'https://other.example/collector' });
  });

  it('refuses a field the type has not, naming it; the type never changes', async () => {
    const t = auditStreams();
    const datadog = await t.service.create(admin, DATADOG);
    const https = await t.service.create(admin, HTTPS);
    const noUrl = await caught(() => t.service.update(admin, datadog.id, { url: 'https://x.example' }));
    expect([noUrl.code, noUrl.message]).toEqual(['VALIDATION_ERROR', expect.stringMatching(/^url: a datadog stream has none/)]);
    const noToken = await caught(() => t.service.update(admin, https.id, { token: 'abc' }));
    expect([noToken.code, noToken.message]).toEqual(['VALIDATION_ERROR', expect.stringMatching(/^token: a https stream has none/)]);
    expect(t.audits).toHaveLength(2);
  });

  it('is CONFLICT when another PATCH changed the stream since it was read', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, DATADOG);
    t.race.bumpOnUpdate = true;
    expect((await caught(() => t.service.update(admin, made.id, { status: 'disabled' }))).code).toBe('CONFLICT');
  });
});
