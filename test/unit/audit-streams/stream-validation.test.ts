import { describe, expect, it } from 'vitest';
import { makeAuditStreamRoutes } from '../../../functions/audit-streams/routes.ts';
import { DATADOG_SITES } from '../../../shared/audit-streams/stream-records.ts';
import { MAX_STREAM_CREDENTIAL, MAX_STREAM_HEADERS, MAX_STREAM_URL } from '../../../shared/audit-streams/stream-schemas.ts';
import { streamUrlCheck } from '../../../shared/audit-streams/stream-url-check.ts';
import { parseInput } from '../../../shared/platform/http/validation.ts';

const routes = makeAuditStreamRoutes({} as never);
const create = (body: Record<string, unknown>) => parseInput(routes['POST /api/v1/audit-streams'].body!, body);
const patch = (body: Record<string, unknown>) => parseInput(routes['PATCH /api/v1/audit-streams/{id}'].body!, body);

/** The VALIDATION_ERROR message of a body, or 'ok' when it is accepted. */
function verdict(parse: () => unknown): string {
  try {
    parse();
    return 'ok';
  } catch (error) {
    expect((error as { code?: string }).code).toBe('VALIDATION_ERROR');
    return (error as Error).message;
  }
}

const https = { type: 'https', url: 'https://siem.example/in' };
const splunk = { type: 'splunk-hec', url: 'https://splunk.example:8088/services/collector', token: 'tok' };
const datadog = { type: 'datadog', site: 'datadoghq.com', apiKey: 'a'.repeat(32) };
/** `n` distinct header names. */
const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));
/** A url of exactly `length` characters. */
const urlOf = (length: number) => `https://siem.example/${'p'.repeat(length - 'https://siem.example/'.length)}`;

describe('audit streams: what a create accepts, each refusal naming the field and the rule', () => {
  it('url: https only, up to 2048 characters', () => {
    expect(verdict(() => create({ ...https, url: urlOf(MAX_STREAM_URL) }))).toBe('ok');
    expect(verdict(() => create({ ...https, url: urlOf(MAX_STREAM_URL + 1) }))).toMatch(/^url: /);
    expect(verdict(() => create({ ...https, url: 'http://siem.example/in' }))).toBe('url: must use https');
    expect(verdict(() => create({ ...splunk, url: 'ftp://splunk.example/' }))).toBe('url: must use https');
    expect(verdict(() => create({ ...https, url: 'not a url' }))).toBe('url: must use https');
  });

  it('headers: at most 10, HTTP names up to 64, printable values up to 1024, none a delivery sets, none twice', () => {
    expect(verdict(() => create({ ...https, headers: headers(MAX_STREAM_HEADERS) }))).toBe('ok');
    expect(verdict(() => create({ ...https, headers: headers(MAX_STREAM_HEADERS + 1) }))).toBe('headers: must have at most 10 headers');
    expect(verdict(() => create({ ...https, headers: { ['X'.repeat(64)]: 'v' } }))).toBe('ok');
    expect(verdict(() => create({ ...https, headers: { ['X'.repeat(65)]: 'v' } }))).toMatch(/^headers: must be named as HTTP headers are/);
    expect(verdict(() => create({ ...https, headers: { 'Bad Name': 'v' } }))).toBe(
      "headers: must be named as HTTP headers are: up to 64 letters, digits and !#$%&'*+.^_`|~-",
    );
    expect(verdict(() => create({ ...https, headers: { 'X-A': 'v'.repeat(MAX_STREAM_CREDENTIAL) } }))).toBe('ok');
    expect(verdict(() => create({ ...https, headers: { 'X-A': 'v'.repeat(MAX_STREAM_CREDENTIAL + 1) } }))).toMatch(/^headers\.X-A/);
    expect(verdict(() => create({ ...https, headers: { 'X-A': 'a\r\nX-Injected: 1' } }))).toMatch(/^headers\.X-A: must be printable ASCII/);
    expect(verdict(() => create({ ...https, headers: { 'X-A': '' } }))).toMatch(/^headers\.X-A/);
    expect(verdict(() => create({ ...https, headers: { 'Service-Signature': 't=1,v1=00' } }))).toMatch(
      /^headers: must not set .*service-signature/,
    );
    expect(verdict(() => create({ ...https, headers: { 'content-TYPE': 'text/plain' } }))).toMatch(/^headers: must not set/);
    expect(verdict(() => create({ ...https, headers: { 'X-A': '1', 'x-a': '2' } }))).toBe(
      'headers: must not name a header twice (names are compared without case)',
    );
  });

  it('splunk-hec: a token of printable characters without spaces, up to 1024', () => {
    expect(verdict(() => create({ ...splunk, token: 't'.repeat(MAX_STREAM_CREDENTIAL) }))).toBe('ok');
    expect(verdict(() => create({ ...splunk, token: 't'.repeat(MAX_STREAM_CREDENTIAL + 1) }))).toMatch(/^token: /);
    expect(verdict(() => create({ ...splunk, token: 'a b' }))).toBe('token: must be printable ASCII without spaces');
    expect(verdict(() => create({ type: 'splunk-hec', url: splunk.url }))).toMatch(/^token: /);
  });

  it("datadog: one of Datadog's sites, an API key of 32 hexadecimal characters", () => {
    for (const site of DATADOG_SITES) expect(verdict(() => create({ ...datadog, site }))).toBe('ok');
    expect(verdict(() => create({ ...datadog, site: 'datadoghq.co' }))).toMatch(/^site: must be one of datadoghq\.com, /);
    expect(verdict(() => create({ ...datadog, apiKey: 'F'.repeat(32) }))).toBe('ok');
    for (const apiKey of ['a'.repeat(31), 'a'.repeat(33), 'g'.repeat(32)])
      expect(verdict(() => create({ ...datadog, apiKey }))).toBe('apiKey: must be a Datadog API key (32 hexadecimal characters)');
  });

  it("a type's fields and no other: a credential of another type, an unknown type, an unknown field", () => {
    expect(verdict(() => create({ ...https, token: 'tok' }))).toMatch(/token/);
    expect(verdict(() => create({ ...datadog, url: 'https://x.example' }))).toMatch(/url/);
    expect(verdict(() => create({ type: 'kafka', url: 'https://x.example' }))).toMatch(/^type/);
    expect(verdict(() => create({ ...https, secret: 'whsec_mine' }))).toMatch(/secret/);
  });
});

describe('audit streams: what a PATCH accepts', () => {
  it('at least one field; status active or disabled; headers null; the same rules as a create', () => {
    expect(verdict(() => patch({}))).toMatch(/must change at least one of url, headers, token, site, apiKey, status/);
    expect(verdict(() => patch({ status: 'disabled' }))).toBe('ok');
    expect(verdict(() => patch({ status: 'paused' }))).toMatch(/^status/);
    expect(verdict(() => patch({ headers: null }))).toBe('ok');
    expect(verdict(() => patch({ url: 'http://x.example' }))).toBe('url: must use https');
    expect(verdict(() => patch({ type: 'datadog' }))).toMatch(/type/);
    expect(verdict(() => patch({ headers: headers(MAX_STREAM_HEADERS + 1) }))).toBe('headers: must have at most 10 headers');
  });
});

describe("audit streams: the url through the webhooks' SSRF guard", () => {
  it('refuses a private address unless the allow-list opens its range, and plain http even then', async () => {
    expect(await streamUrlCheck(undefined)('https://127.0.0.1:9/in')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^points to a blocked address: 127\.0\.0\.1/),
    });
    expect(await streamUrlCheck('127.0.0.0/8')('https://127.0.0.1:9/in')).toEqual({ ok: true });
    expect(await streamUrlCheck('127.0.0.0/8')('http://127.0.0.1:9/in')).toEqual({ ok: false, reason: 'must use https' });
  });
});
