import { describe, expect, it } from 'vitest';
import { caught } from '../support/fakes.ts';
import { auditStreams, DATADOG, DATADOG_KEY, HEADER_VALUE, HTTPS, person, SPLUNK, SPLUNK_TOKEN, stranger } from './support.ts';

/** A new stream's delivery health: nothing has happened yet. */
const NEVER_DELIVERED = { failingSince: null, lastDeliveredAt: null, lastError: null };

const admin = person('admin');
const CREDENTIALS = [HEADER_VALUE, SPLUNK_TOKEN, DATADOG_KEY];

/** Every credential in the clear and every sealed one's ciphertext: none may appear in an answer or an audit entry. */
function secretsOf(t: ReturnType<typeof auditStreams>, signingSecrets: string[]): string[] {
  const sealed = [...t.stored.values()].flatMap((stream) => Object.values(stream.sealed).map((value) => value!.ciphertext));
  return [...CREDENTIALS, ...signingSecrets, ...sealed];
}

describe('audit streams: creating', () => {
  it('https: answers the whsec_ secret once with its hint and the header names; seals the secret and the header values apart', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, HTTPS);
    expect(made).toEqual({
      id: expect.stringMatching(/^as_[0-9A-Z]{26}$/),
      type: 'https',
      url: HTTPS.url,
      headers: ['Authorization', 'X-Tenant'],
      secretHint: expect.stringMatching(/^whsec_….{4}$/),
      secret: expect.stringMatching(/^whsec_[\w-]{43}$/),
      status: 'active',
      createdAt: expect.any(String),
      ...NEVER_DELIVERED,
    });
    const secret = (made as { secret: string }).secret;
    expect((made as { secretHint: string }).secretHint).toBe(`whsec_…${secret.slice(-4)}`);
    expect(t.cipher.encrypted).toEqual([
      { workspaceId: 'ws_test', auditStreamId: made.id, credential: 'secret' },
      { workspaceId: 'ws_test', auditStreamId: made.id, credential: 'headers' },
    ]);
    expect(Object.keys(t.stored.get(made.id)!.sealed).sort()).toEqual(['headers', 'secret']);
    expect(t.checkedUrls).toEqual([HTTPS.url]);
    const shown = await t.service.get(admin, made.id);
    expect(shown).not.toHaveProperty('secret');
    expect(shown).toEqual({ ...made, secret: undefined });
  });

  it('splunk-hec and datadog: the token and the API key sealed under their names; a datadog stream has no url to check', async () => {
    const t = auditStreams();
    const splunk = await t.service.create(admin, SPLUNK);
    const datadog = await t.service.create(admin, DATADOG);
    expect(splunk).toEqual({
      id: expect.any(String),
      type: 'splunk-hec',
      url: SPLUNK.url,
      status: 'active',
      createdAt: expect.any(String),
      ...NEVER_DELIVERED,
    });
    expect(datadog).toEqual({
      id: expect.any(String),
      type: 'datadog',
      site: 'datadoghq.eu',
      status: 'active',
      createdAt: expect.any(String),
      ...NEVER_DELIVERED,
    });
    expect(t.cipher.encrypted.map((context) => context.credential)).toEqual(['token', 'apiKey']);
    expect(t.checkedUrls).toEqual([SPLUNK.url]);
  });

  it('never answers, stores in the clear nor audits a credential or a signing secret', async () => {
    const t = auditStreams();
    const made = [await t.service.create(admin, HTTPS), await t.service.create(admin, SPLUNK), await t.service.create(admin, DATADOG)];
    const signing = [(made[0] as { secret: string }).secret];
    const later = [await t.service.list(admin, { limit: 10 }), ...(await Promise.all(made.map((s) => t.service.get(admin, s.id))))];
    for (const text of [JSON.stringify(later), JSON.stringify(t.audits)])
      for (const secret of secretsOf(t, signing)) expect(text).not.toContain(secret);
    expect(JSON.stringify([...t.stored.values()].map(({ sealed: _sealed, ...clear }) => clear))).not.toMatch(
      /SECRET|SPLUNK-TOKEN|0123456789abcdef|whsec_[\w-]{43}/,
    );
  });

  it('audits audit_stream.create with the type, the url without its query and the header names', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, HTTPS);
    expect(t.audits.map((a) => [a.action, a.target, a.metadata])).toEqual([
      [
        'audit_stream.create',
        made.id,
        {
          auditStreamId: made.id,
          type: 'https',
          url: 'https://siem.example/ingest?…',
          headers: ['Authorization', 'X-Tenant'],
          credentialKind: 'user',
        },
      ],
    ]);
  });

  it('is for admins only: a developer or a viewer is FORBIDDEN, and nothing is sealed or written', async () => {
    const t = auditStreams();
    for (const role of ['developer', 'viewer'] as const) {
      const error = await caught(() => t.service.create(person(role), HTTPS));
      expect([error.code, error.message]).toEqual(['FORBIDDEN', expect.stringContaining('manage audit streams')]);
    }
    expect([t.stored.size, t.audits.length, t.cipher.encrypted.length, t.checkedUrls.length]).toEqual([0, 0, 0, 0]);
  });

  it("refuses a url the SSRF guard refuses, naming the field and the guard's reason", async () => {
    const t = auditStreams({ urlVerdict: { ok: false, reason: 'resolves to a blocked address: 10.0.0.1 (private)' } });
    const error = await caught(() => t.service.create(admin, SPLUNK));
    expect([error.code, error.message]).toEqual(['VALIDATION_ERROR', 'url: resolves to a blocked address: 10.0.0.1 (private)']);
    expect([t.stored.size, t.cipher.encrypted.length]).toEqual([0, 0]);
  });
});

describe('audit streams: reading and deleting', () => {
  it("lists and gets the workspace's streams; another workspace's are NOT_FOUND and not listed; a developer is FORBIDDEN", async () => {
    const t = auditStreams();
    const a = await t.service.create(admin, SPLUNK);
    const b = await t.service.create(admin, DATADOG);
    expect((await t.service.list(admin, { limit: 10 })).items.map((s) => s.id)).toEqual([b.id, a.id]);
    expect((await t.service.list(stranger(), { limit: 10 })).items).toEqual([]);
    for (const act of [() => t.service.get(stranger(), a.id), () => t.service.delete(stranger(), a.id)])
      expect((await caught(act)).code).toBe('NOT_FOUND');
    expect((await caught(() => t.service.update(stranger(), a.id, { status: 'disabled' }))).code).toBe('NOT_FOUND');
    for (const act of [
      () => t.service.list(person('developer'), { limit: 10 }),
      () => t.service.get(person('developer'), a.id),
      () => t.service.update(person('developer'), a.id, { status: 'disabled' }),
      () => t.service.delete(person('developer'), a.id),
    ])
      expect((await caught(act)).code).toBe('FORBIDDEN');
    expect(t.stored.get(a.id)!.status).toBe('active');
  });

  it('deletes with audit_stream.delete; again is NOT_FOUND', async () => {
    const t = auditStreams();
    const made = await t.service.create(admin, DATADOG);
    await expect(t.service.delete(admin, made.id)).resolves.toEqual({ id: made.id, deleted: true });
    expect(t.audits.at(-1)).toMatchObject({ action: 'audit_stream.delete', target: made.id, metadata: { site: 'datadoghq.eu' } });
    expect((await caught(() => t.service.delete(admin, made.id))).code).toBe('NOT_FOUND');
  });
});
