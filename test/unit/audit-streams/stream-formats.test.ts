import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { AUDIT_FIELDS } from '../../../shared/audit/audit-store.ts';
import { auditEntryAnswer } from '../../../shared/audit/audit-answers.ts';
import { buildAnswer } from '../../../shared/platform/http/build-answer.ts';
import { splunkEventUrl, streamBody, streamRequest, type OpenedStream } from '../../../shared/audit-streams/delivery/stream-formats.ts';
import { RESERVED_HEADERS } from '../../../shared/audit-streams/stream-schemas.ts';

const SECRET = 'whsec_c2lnbmluZy1zZWNyZXQtb2YtdGhlLXRlc3Qtc3RyZWFt';
const HEADER_VALUE = 'Bearer hdr-SECRET-value-1';
const SPLUNK_TOKEN = 'b0a1c2d3-SPLUNK-TOKEN-e4f5';
const DATADOG_KEY = '0123456789abcdef0123456789abcdef';
/** 2026-12-07T10:00:05.250Z: the signature's `t` is its whole seconds. */
const NOW = Date.UTC(2026, 11, 7, 10, 0, 5, 250);
const T = Math.floor(NOW / 1000);

/** Two entries as the table's stream carries them: with the account and workspace the API never answers. */
const ENTRIES = [
  {
    workspaceId: 'ws_1',
    accountId: 'acc_1',
    createdAt: '2026-12-07T09:59:58.123Z',
    metadata: { credentialKind: 'user', note: 'café' },
    target: 'sec_1',
    actorSub: 'usr_1',
    action: 'secret.reveal',
    id: 'aud_01KBX0000000000000000000A1',
  },
  {
    id: 'aud_01KBX0000000000000000000A2',
    action: 'secret.rotate',
    actorSub: 'usr_2',
    target: 'sec_2',
    metadata: {},
    createdAt: '2026-12-07T09:59:59.000Z',
  },
] as AuditEntry[];
const LINE_1 =
  '{"id":"aud_01KBX0000000000000000000A1","action":"secret.reveal","actorSub":"usr_1","target":"sec_1","metadata":{"credentialKind":"user","note":"café"},"createdAt":"2026-12-07T09:59:58.123Z"}';
const LINE_2 =
  '{"id":"aud_01KBX0000000000000000000A2","action":"secret.rotate","actorSub":"usr_2","target":"sec_2","metadata":{},"createdAt":"2026-12-07T09:59:59.000Z"}';

const https = (headers: Record<string, string> = {}): OpenedStream => ({
  type: 'https',
  url: 'https://siem.example/ingest?k=q',
  secret: SECRET,
  headers,
});
const splunk = (url: string): OpenedStream => ({ type: 'splunk-hec', url, token: SPLUNK_TOKEN });

describe('audit stream formats: https', () => {
  it('posts the entries as JSON lines the API answers, signed as a webhook delivery, with the stream headers', () => {
    // Act
    const request = streamRequest(https({ Authorization: HEADER_VALUE, 'X-Tenant': 'acme' }), ENTRIES, NOW);

    // Assess: the signature recomputed by the rule (HMAC-SHA256 of "<t>.<raw body>" keyed with the whole secret).
    const expected = createHmac('sha256', SECRET).update(`${T}.${LINE_1}\n${LINE_2}\n`, 'utf8').digest('hex');
    expect(request).toEqual({
      url: 'https://siem.example/ingest?k=q',
      headers: {
        Authorization: HEADER_VALUE,
        'X-Tenant': 'acme',
        'Content-Type': 'application/x-ndjson',
        'Service-Signature': `t=${T},v1=${expected}`,
      },
      body: `${LINE_1}\n${LINE_2}\n`,
    });
  });

  it("writes each line with the API's fields only, in the API's order", () => {
    // Act
    const lines = streamBody('https', ENTRIES).split('\n');

    // Assess
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    for (const line of lines.slice(0, 2)) expect(Object.keys(JSON.parse(line))).toEqual([...AUDIT_FIELDS]);
    // The very answer of GET /api/v1/audit, built through its schema, for an entry with fields the API never answers.
    const stored = { ...ENTRIES[0]!, accountId: 'acc_1', packed: 'x' } as AuditEntry;
    expect(JSON.parse(streamBody('https', [stored]).trim())).toEqual(buildAnswer(auditEntryAnswer(), stored));
    expect(Object.keys(auditEntryAnswer().shape)).toEqual([...AUDIT_FIELDS]);
  });

  it('never lets a stream header named as ours (in any case) replace ours or be sent twice', () => {
    // Prepare: names the schemas refuse, as a record from before that rule could hold them.
    const forged = { 'content-type': 'text/plain', 'SERVICE-SIGNATURE': 't=1,v1=00', host: 'evil.example', 'X-Tenant': 'acme' };

    // Act
    const { headers, body } = streamRequest(https(forged), ENTRIES, NOW);

    // Assess
    const expected = createHmac('sha256', SECRET).update(`${T}.${body}`, 'utf8').digest('hex');
    expect(headers).toEqual({ 'X-Tenant': 'acme', 'Content-Type': 'application/x-ndjson', 'Service-Signature': `t=${T},v1=${expected}` });
  });

  it('sets only headers that a stream may not set itself', () => {
    // Act
    const ours = Object.keys(streamRequest(https(), ENTRIES, NOW).headers).map((name) => name.toLowerCase());

    // Assess: a header we add later must join RESERVED_HEADERS, or a stream's could be sent beside it.
    expect(ours.filter((name) => !(RESERVED_HEADERS as readonly string[]).includes(name))).toEqual([]);
  });
});

describe('audit stream formats: Splunk HEC', () => {
  it("posts the entries as concatenated HEC events with the entry's time, authorized by the token", () => {
    // Act
    const request = streamRequest(splunk('https://splunk.example:8088/services/collector/event'), ENTRIES, NOW);

    // Assess
    expect(request).toEqual({
      url: 'https://splunk.example:8088/services/collector/event',
      headers: { 'Content-Type': 'application/json', Authorization: `Splunk ${SPLUNK_TOKEN}` },
      body:
        `{"time":1796637598.123,"source":"secrets-service","sourcetype":"_json","event":${LINE_1}}` +
        `{"time":1796637599,"source":"secrets-service","sourcetype":"_json","event":${LINE_2}}`,
    });
  });

  it.each([
    ['https://splunk.example:8088/services/collector/event?channel=c1', 'https://splunk.example:8088/services/collector/event?channel=c1'],
    ['https://SPLUNK.example:443/services/collector/event', 'https://SPLUNK.example:443/services/collector/event'],
    ['https://splunk.example:8088/services/collector/event/', 'https://splunk.example:8088/services/collector/event'],
    ['https://splunk.example:8088/services/collector', 'https://splunk.example:8088/services/collector/event'],
    ['https://splunk.example:8088/services/collector/?channel=c1', 'https://splunk.example:8088/services/collector/event?channel=c1'],
    ['https://splunk.example:8088', 'https://splunk.example:8088/services/collector/event'],
    ['https://proxy.example/splunk/', 'https://proxy.example/splunk/services/collector/event'],
  ])('posts %s to %s', (given, posted) => {
    // Act
    const url = splunkEventUrl(given);

    // Assess
    expect(url).toBe(posted);
  });

  it('refuses a url it cannot read without repeating it', () => {
    // Act
    const attempt = () => splunkEventUrl('splunk.example/services/collector?token=leaked-SECRET');

    // Assess
    expect(attempt).toThrow('a Splunk HEC stream needs an absolute url');
    expect(attempt).not.toThrow(/leaked-SECRET/);
  });
});

describe('audit stream formats: Datadog', () => {
  it("posts a JSON array of logs to the site's intake, each message the entry as the API answers it, dated when it was made", () => {
    // Act
    const request = streamRequest({ type: 'datadog', site: 'datadoghq.eu', apiKey: DATADOG_KEY }, ENTRIES, NOW);

    // Assess
    const log = (line: string) =>
      `{"ddsource":"secrets-service","service":"secrets-service","timestamp":${Date.parse(JSON.parse(line).createdAt)},"message":${JSON.stringify(line)}}`;
    expect(request).toEqual({
      url: 'https://http-intake.logs.datadoghq.eu/api/v2/logs',
      headers: { 'Content-Type': 'application/json', 'DD-API-KEY': DATADOG_KEY },
      body: `[${log(LINE_1)},${log(LINE_2)}]`,
    });
  });

  it('reaches the intake of the stream site', () => {
    // Act
    const { url } = streamRequest({ type: 'datadog', site: 'us5.datadoghq.com', apiKey: DATADOG_KEY }, ENTRIES, NOW);

    // Assess
    expect(url).toBe('https://http-intake.logs.us5.datadoghq.com/api/v2/logs');
  });
});

describe('audit stream formats: any type', () => {
  it('refuses an empty batch, naming no credential', () => {
    // Act
    const attempt = () => streamRequest(https({ Authorization: HEADER_VALUE }), [], NOW);

    // Assess
    expect(attempt).toThrow('a stream batch needs at least one audit entry');
    expect(attempt).not.toThrow(new RegExp(`${SECRET}|${HEADER_VALUE}`));
  });
});
