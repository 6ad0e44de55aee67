import { describe, expect, it } from 'vitest';
import {
  callerArnOf,
  checkSignedRequest,
  GET_CALLER_IDENTITY_BODY,
  IamLoginRefused,
  principalArnOf,
  principalMatches,
  type SignedRequest,
} from '../../../shared/access/iam-login.ts';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const SETTINGS = { stsEndpoint: 'https://sts.eu-west-1.amazonaws.com/', serverId: 'secrets.example.com', now: NOW };
const SIGNATURE = 'a'.repeat(64);
const authorization = (signed = 'content-type;host;x-amz-date;x-service-server-id') =>
  `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261125/eu-west-1/sts/aws4_request, SignedHeaders=${signed}, Signature=${SIGNATURE}`;

/** A login request as the SDK's signer makes it; `change` edits it for one check. */
function request(change: (r: SignedRequest) => void = () => undefined): SignedRequest {
  const r: SignedRequest = {
    url: 'https://sts.eu-west-1.amazonaws.com/',
    method: 'POST',
    body: GET_CALLER_IDENTITY_BODY,
    headers: {
      Host: 'sts.eu-west-1.amazonaws.com',
      'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8',
      'X-Amz-Date': '20261125T120000Z',
      'X-Service-Server-Id': 'secrets.example.com',
      Authorization: authorization(),
    },
  };
  change(r);
  return r;
}

const refusal = (r: SignedRequest, settings = SETTINGS) => {
  try {
    checkSignedRequest(r, settings);
  } catch (error) {
    if (error instanceof IamLoginRefused) return { reason: error.reason, message: error.message };
    throw error;
  }
  return undefined;
};

describe('IAM login: the signed request', () => {
  it('takes the request the signer makes, and answers its headers lower-cased', () => {
    expect(checkSignedRequest(request(), SETTINGS)).toMatchObject({
      host: 'sts.eu-west-1.amazonaws.com',
      'x-service-server-id': 'secrets.example.com',
    });
    // The same endpoint spelled otherwise is the same endpoint.
    expect(refusal(request((r) => (r.url = 'HTTPS://STS.eu-west-1.amazonaws.com:443/')))).toBeUndefined();
    expect(refusal(request((r) => (r.headers['X-Amz-Date'] = '20261125T120459Z')))).toBeUndefined();
  });

  it.each<[string, (r: SignedRequest) => void, string, RegExp]>([
    ['another endpoint', (r) => (r.url = 'https://sts.amazonaws.com/'), 'endpoint', /url: must be the configured STS endpoint/],
    ['an endpoint of the attacker', (r) => (r.url = 'https://evil.example/'), 'endpoint', /url/],
    ['a path on the endpoint', (r) => (r.url = 'https://sts.eu-west-1.amazonaws.com/x'), 'endpoint', /url/],
    ['a query on the endpoint', (r) => (r.url = 'https://sts.eu-west-1.amazonaws.com/?Action=AssumeRole'), 'endpoint', /url/],
    ['another method', (r) => (r.method = 'GET'), 'method', /method: must be POST/],
    ['another action', (r) => (r.body = 'Action=AssumeRole&Version=2011-06-15'), 'action', /body: must be exactly/],
    ['an extra parameter', (r) => (r.body = `${GET_CALLER_IDENTITY_BODY}&RoleArn=x`), 'action', /body/],
    ['a header off the list', (r) => (r.headers['X-Forwarded-Host'] = 'evil'), 'header', /x-forwarded-host is not allowed/],
    ['a header twice in two cases', (r) => (r.headers.host = 'sts.eu-west-1.amazonaws.com'), 'header', /host is given twice/],
    [
      'a line break in a header value',
      (r) => (r.headers['User-Agent'] = 'sdk\r\nx-evil: 1'),
      'header',
      /user-agent has a character a header cannot carry/,
    ],
    ['no server id', (r) => delete r.headers['X-Service-Server-Id'], 'server_id', /x-service-server-id is required/],
    ['another server id', (r) => (r.headers['X-Service-Server-Id'] = 'other.example.com'), 'server_id', /is not this service's id/],
    [
      'an unsigned server id',
      (r) => (r.headers.Authorization = authorization('content-type;host;x-amz-date')),
      'server_id',
      /must be signed/,
    ],
    ['no SigV4 authorization', (r) => (r.headers.Authorization = 'Bearer x'), 'signature', /Signature Version 4/],
    ['no date', (r) => delete r.headers['X-Amz-Date'], 'date', /x-amz-date is required/],
    [
      'an unsigned date',
      (r) => (r.headers.Authorization = authorization('content-type;host;x-service-server-id')),
      'date',
      /x-amz-date must be signed/,
    ],
    ['a date over 5 minutes old', (r) => (r.headers['X-Amz-Date'] = '20261125T115459Z'), 'date', /more than 5 minutes/],
    ['a date over 5 minutes ahead', (r) => (r.headers['X-Amz-Date'] = '20261125T120501Z'), 'date', /more than 5 minutes/],
    ['an impossible date', (r) => (r.headers['X-Amz-Date'] = '20261131T120000Z'), 'date', /x-amz-date is required/],
  ])('refuses %s', (_name, change, reason, message) => {
    const refused = refusal(request(change));
    expect(refused?.reason).toBe(reason);
    expect(refused?.message).toMatch(message);
    expect(refused?.message).not.toContain(SIGNATURE);
  });
});

describe('IAM login: the caller', () => {
  const answer = (arn: string) =>
    `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>${arn}</Arn><UserId>AROA:x</UserId><Account>123456789012</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></GetCallerIdentityResponse>`;

  it('reads the one ARN of an answer, strictly', () => {
    expect(callerArnOf(answer('arn:aws:sts::123456789012:assumed-role/payments-api/lambda-session'))).toBe(
      'arn:aws:sts::123456789012:assumed-role/payments-api/lambda-session',
    );
    expect(callerArnOf(answer('arn:aws:iam::123456789012:user/ci'))).toBe('arn:aws:iam::123456789012:user/ci');
    expect(callerArnOf(answer('arn:aws:iam::123456789012:root'))).toBeUndefined();
    expect(callerArnOf(answer('arn:aws:sts::12345:assumed-role/r/s'))).toBeUndefined();
    expect(callerArnOf(`${answer('arn:aws:iam::123456789012:user/a')}${answer('arn:aws:iam::123456789012:user/b')}`)).toBeUndefined();
    expect(
      callerArnOf(
        '<GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/a</Arn><Arn>arn:aws:iam::123456789012:user/b</Arn></GetCallerIdentityResult>',
      ),
    ).toBeUndefined();
    expect(callerArnOf('<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code></Error></ErrorResponse>')).toBeUndefined();
  });

  it('matches an assumed role as its role, by the globs of permissions', () => {
    const role = principalArnOf('arn:aws:sts::123456789012:assumed-role/payments-api/lambda-session');
    expect(role).toBe('arn:aws:iam::123456789012:role/payments-api');
    expect(principalArnOf('arn:aws:iam::123456789012:user/ci')).toBe('arn:aws:iam::123456789012:user/ci');
    expect(principalMatches(role, ['arn:aws:iam::123456789012:role/payments-*'])).toBe(true);
    expect(principalMatches(role, ['arn:aws:iam::123456789012:role/billing-*'])).toBe(false);
    expect(principalMatches(role, ['arn:aws:iam::999999999999:role/payments-*'])).toBe(false);
    // `*` stops at `/`: a pattern for one role path does not reach into another.
    expect(principalMatches('arn:aws:iam::123456789012:role/team/payments-api', ['arn:aws:iam::123456789012:role/*'])).toBe(false);
    expect(principalMatches('arn:aws:iam::123456789012:role/team/payments-api', ['arn:aws:iam::123456789012:role/**'])).toBe(true);
    // A pattern that looks like a regular expression is a literal.
    expect(principalMatches(role, ['arn:aws:iam::123456789012:role/payments.api'])).toBe(false);
  });

  it('matches any of the patterns: literals, `?` for one character other than `/`, and `**` across paths', () => {
    const patterns = [
      'arn:aws:iam::123456789012:user/ci',
      'arn:aws:iam::123456789012:role/app-??',
      'arn:aws:iam::123456789012:role/team/**',
    ];
    expect(principalMatches('arn:aws:iam::123456789012:user/ci', patterns)).toBe(true);
    expect(principalMatches('arn:aws:iam::123456789012:user/cd', patterns)).toBe(false);
    expect(principalMatches('arn:aws:iam::123456789012:role/app-eu', patterns)).toBe(true);
    expect(principalMatches('arn:aws:iam::123456789012:role/app-e/', patterns)).toBe(false);
    expect(principalMatches('arn:aws:iam::123456789012:role/app-eu1', patterns)).toBe(false);
    expect(principalMatches('arn:aws:iam::123456789012:role/team/a/b/deploy', patterns)).toBe(true);
    expect(principalMatches('arn:aws:iam::123456789012:role/team', patterns)).toBe(false);
  });

  it('answers a long role path against a pattern of many ** without backtracking (the outcome; no time asserted)', () => {
    // Prepare: a role path of 500 characters, of the longest an answer may carry, that fails at its last character
    const path = `${'a-'.repeat(249)}b`;
    const pattern = 'arn:aws:iam::123456789012:role/**-**-**-**-**-**-**-**-x';
    // Act / Assess
    expect(principalMatches(`arn:aws:iam::123456789012:role/${path}`, [pattern])).toBe(false);
    expect(principalMatches(`arn:aws:iam::123456789012:role/${path.slice(0, -1)}x`, [pattern])).toBe(true);
  });
});
