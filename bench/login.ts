import { SignatureV4 } from '@smithy/signature-v4';
import { createIdentity, NodeSha256 } from '../bin/local/sts.ts';
import { GET_CALLER_IDENTITY_BODY } from '../shared/access/iam-login.ts';
import type { makeCallRecorder } from './calls.ts';
import { request, type Api } from './load.ts';
import { costPerMillion, lambdaDurationMs, PRICES, type OperationCalls } from './prices.ts';
import { quantile, round2 } from './stats.ts';

/**
 * What workload identity costs (decisions.md, "Workload identity"): one AWS IAM login through the local STS
 * stand-in, priced at AWS billing (API Gateway, Lambda, the table's units and the audit entry; STS's
 * GetCallerIdentity is free), its local latency, and the cost per reveal of a workload that logs in every 15 minutes
 * and reveals N times in between. Beside it, what the login budgets (decisions.md, "Hardening v1.3") cost: a refused
 * login (counted for its address, audited) and one past the budget (429 before any check), and what the strongly
 * consistent read of a login key's state costs a reveal: the same reveal with the login's token and with an API key,
 * whose workspace item is still read eventually consistently. `BENCH_ONLY=login npm run bench` runs this alone.
 */

export interface LoginStack {
  baseUrl: string;
  apiKey: string;
  localDir: string;
  awsStsEndpoint: string;
  iamServerId: string;
}

/** Access keys the latency samples are spread over: each key has 60 successful logins a minute. */
const KEYS = 5;
const SAMPLES_PER_KEY = 40;
/** Reveals between two logins, per 15-minute token. */
const REVEALS_PER_LOGIN = [1, 10, 100, 1000] as const;
const LOGIN_ROUTE = ['POST /api/v1/auth/login'];
const REVEAL_ROUTE = ['POST /api/v1/reveal'];

/** Lambda's price of 10 ms at 512 MB, per million: what each 10 ms of STS's answer adds to a login. */
export const STS_WAIT_10MS_PER_MILLION = Math.round(0.5 * 0.01 * PRICES.lambdaArmGbSecond * 1e6 * 1000) / 1000;

const NOTE = `one AWS IAM login (signed with the AWS SDK's signer, replayed by the service to the local STS stand-in, which answers in well under a millisecond; a regional STS call in AWS adds its own wait to the billed duration: each 10 ms is $${STS_WAIT_10MS_PER_MILLION} per million logins at 512 MB); warm; cost at AWS billing with the local p50 as the billed duration; per reveal: (one login + N reveals by path with the login's token) / N`;

export interface LoginResults {
  note: string;
  login: OperationCalls & {
    costPerMillionUsd: number;
    lambdaDurationMs: number;
    p50Ms: number | null;
    p99Ms: number | null;
    samples: number;
  };
  /** A login refused by a check (no STS call): its refusal counted for its address, its audit entry written. */
  refusedLogin: OperationCalls & { costPerMillionUsd: number };
  /** A login past its address's budget of refusals: 429 after the one read, before any check. */
  rateLimitedLogin: OperationCalls & { costPerMillionUsd: number };
  revealWithLoginToken: OperationCalls & { costPerMillionUsd: number; p50Ms: number | null };
  /** The same reveal with an API key, whose workspace item is read eventually consistently. */
  revealWithApiKey: OperationCalls;
  /** What reading the login key's state strongly consistent adds to a reveal with a login token: RRU, and $ per million reveals. */
  strongKeyState: { readUnits: number; usdPerMillionReveals: number };
  perReveal: { revealsPerLogin: number; costPerMillionRevealsUsd: number; overRevealAlone: number }[];
}

/** Refused by the first check, before any call to STS: another endpoint than the configured one. */
const REFUSED_REQUEST = { url: 'https://sts.amazonaws.com/', method: 'POST', headers: {}, body: '' };

/** Sends a refused login and answers its status. */
async function refusedLogin(stack: LoginStack, accessKeyId: string): Promise<number> {
  const response = await fetch(`${stack.baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accessKeyId, method: 'aws_iam', signedRequest: REFUSED_REQUEST }),
  });
  await response.text();
  return response.status;
}

/** A GetCallerIdentity request signed for the stand-in (region us-east-1), bound to the service's server id. */
async function signedRequest(stack: LoginStack, credentials: { accessKeyId: string; secretAccessKey: string }) {
  const url = new URL(stack.awsStsEndpoint);
  const signer = new SignatureV4({ service: 'sts', region: 'us-east-1', credentials, sha256: NodeSha256 });
  const headers = {
    host: url.host,
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    'x-service-server-id': stack.iamServerId,
  };
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers,
    body: GET_CALLER_IDENTITY_BODY,
  });
  return { url: url.href, method: 'POST', headers: signed.headers as Record<string, string>, body: GET_CALLER_IDENTITY_BODY };
}

export async function measureLogin(stack: LoginStack, recorder: ReturnType<typeof makeCallRecorder>): Promise<LoginResults> {
  const api: Api = { baseUrl: stack.baseUrl, apiKey: stack.apiKey };
  const project = await request(api, 'POST', '/api/v1/projects', { name: 'Login bench' }, 201);
  const environment = await request(api, 'POST', `/api/v1/projects/${project.data.id}/environments`, { name: 'prod' }, 201);
  await request(api, 'PUT', `/api/v1/environments/${environment.data.id}/secrets`, { key: 'DATABASE_URL', value: 'postgres://bench' });
  const path = `${project.data.slug}/${environment.data.slug}/DATABASE_URL`;
  const role = 'arn:aws:iam::123456789012:role/bench-workload';
  const identity = createIdentity(stack.localDir, role);
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const key = await request(
      api,
      'POST',
      '/api/v1/access-keys',
      { name: `bench login ${i}`, auth: { type: 'aws_iam', principalArns: [role] } },
      201,
    );
    keys.push(key.data.id);
  }
  const login = async (accessKeyId: string) => {
    const response = await fetch(`${stack.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accessKeyId, method: 'aws_iam', signedRequest: await signedRequest(stack, identity) }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`login: ${response.status} ${text.slice(0, 200)}`);
    return { token: JSON.parse(text).data.token as string, bytes: Buffer.byteLength(text) };
  };

  // Warm: the MAC key unsealed, the clients made. Then the calls of one login, and the latency of many (signing, which
  // the workload does, is outside the timing).
  const { token, bytes } = await login(keys[0]!);
  const calls = await recorder.measure(LOGIN_ROUTE, () => login(keys[0]!));
  const latencies: number[] = [];
  for (let i = 0; i < KEYS * SAMPLES_PER_KEY; i++) {
    const body = JSON.stringify({ accessKeyId: keys[i % KEYS], method: 'aws_iam', signedRequest: await signedRequest(stack, identity) });
    const started = performance.now();
    const response = await fetch(`${stack.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await response.text();
    latencies.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`login: ${response.status}`);
  }
  const p50 = quantile(latencies, 0.5);
  const loginDurationMs = lambdaDurationMs(p50 ?? 30, null);
  const loginCost = costPerMillion(calls, { apiBytes: bytes, lambdaInvocations: 1, durationMs: loginDurationMs });

  // A refused login of another key, then refusals from the same address until its budget is spent, then one more:
  // the 429. Measured again if a clock minute ended in between (the budget is whole again: a 401, not a 429).
  const refusedKey = (
    await request(api, 'POST', '/api/v1/access-keys', { name: 'bench refused', auth: { type: 'aws_iam', principalArns: [role] } }, 201)
  ).data.id as string;
  const measureAnswering = async (status: number, before: () => Promise<unknown>) => {
    for (let attempt = 0; ; attempt++) {
      await before();
      let answered = 0;
      const calls = await recorder.measure(LOGIN_ROUTE, async () => (answered = await refusedLogin(stack, refusedKey)));
      if (answered === status) return calls;
      if (attempt === 3) throw new Error(`login: expected ${status}, got ${answered}`);
    }
  };
  const refusedCalls = await measureAnswering(401, async () => undefined);
  const rateLimitedCalls = await measureAnswering(429, async () => {
    for (let i = 0; i < 30 && (await refusedLogin(stack, refusedKey)) !== 429; i++);
  });
  // An error envelope, far under 512 KB: one API Gateway request; billed for the login's duration (an upper bound).
  const errorBytes = 300;
  const refusedCost = costPerMillion(refusedCalls, { apiBytes: errorBytes, lambdaInvocations: 1, durationMs: loginDurationMs });
  const rateLimitedCost = costPerMillion(rateLimitedCalls, { apiBytes: errorBytes, lambdaInvocations: 1, durationMs: loginDurationMs });

  // A reveal by path with the login's token, warm (its rate-limit leases grown): priced as the bench prices reveals.
  const tokenApi: Api = { baseUrl: stack.baseUrl, apiKey: token };
  const reveal = () => request(tokenApi, 'POST', '/api/v1/reveal', { path });
  await recorder.measure(REVEAL_ROUTE, reveal, 0, 20);
  const revealCalls = await recorder.measure(REVEAL_ROUTE, reveal, 0, 50);
  // The same reveal with the API key, warm too: the difference in read units is the login key's state read strongly.
  const revealWithApiKey = () => request(api, 'POST', '/api/v1/reveal', { path });
  await recorder.measure(REVEAL_ROUTE, revealWithApiKey, 0, 20);
  const apiKeyRevealCalls = await recorder.measure(REVEAL_ROUTE, revealWithApiKey, 0, 50);
  const strongReadUnits = round3(revealCalls.billedReadUnits - apiKeyRevealCalls.billedReadUnits);
  const revealLatencies: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await reveal();
    revealLatencies.push(performance.now() - started);
  }
  const revealP50 = quantile(revealLatencies, 0.5);
  const revealBytes = Buffer.byteLength(JSON.stringify(await reveal()));
  const revealCost = costPerMillion(revealCalls, {
    apiBytes: revealBytes,
    lambdaInvocations: 1,
    durationMs: lambdaDurationMs(revealP50 ?? 20, null),
  });

  return {
    note: NOTE,
    login: {
      ...calls,
      costPerMillionUsd: loginCost,
      lambdaDurationMs: loginDurationMs,
      p50Ms: round2(p50),
      p99Ms: round2(quantile(latencies, 0.99)),
      samples: latencies.length,
    },
    refusedLogin: { ...refusedCalls, costPerMillionUsd: refusedCost },
    rateLimitedLogin: { ...rateLimitedCalls, costPerMillionUsd: rateLimitedCost },
    revealWithLoginToken: { ...revealCalls, costPerMillionUsd: revealCost, p50Ms: round2(revealP50) },
    revealWithApiKey: apiKeyRevealCalls,
    strongKeyState: { readUnits: strongReadUnits, usdPerMillionReveals: round3(strongReadUnits * PRICES.dynamoReadUnit * 1e6) },
    perReveal: REVEALS_PER_LOGIN.map((n) => {
      const perReveal = (loginCost + n * revealCost) / n;
      return {
        revealsPerLogin: n,
        costPerMillionRevealsUsd: Math.round(perReveal * 1000) / 1000,
        overRevealAlone: round2(perReveal / revealCost)!,
      };
    }),
  };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** The printed lines. */
export function loginTable(results: LoginResults): string {
  const l = results.login;
  const r = results.revealWithLoginToken;
  const a = results.revealWithApiKey;
  const calls = (label: string, c: OperationCalls, cost: number | string = '') =>
    `| ${label} | ${c.dynamodbRequests} | ${(c.operations ?? []).join(', ')} | ${c.billedReadUnits} | ${c.billedWriteUnits} | ${c.kmsRequests} | | ${cost} | | |`;
  const rows = [
    `workload identity: ${results.note}`,
    '| operation | DynamoDB req | operations | billed RRU | billed WRU | KMS | Lambda ms billed | $ per million | local p50 ms | local p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| IAM login (${l.samples} samples) | ${l.dynamodbRequests} | ${(l.operations ?? []).join(', ')} | ${l.billedReadUnits} | ${l.billedWriteUnits} | ${l.kmsRequests} | ${l.lambdaDurationMs} | ${l.costPerMillionUsd} | ${l.p50Ms} | ${l.p99Ms} |`,
    calls('refused login (counted for its address, audited)', results.refusedLogin, results.refusedLogin.costPerMillionUsd),
    calls('login past the budget (429 before any check)', results.rateLimitedLogin, results.rateLimitedLogin.costPerMillionUsd),
    `| reveal by path with the login's token | ${r.dynamodbRequests} | ${(r.operations ?? []).join(', ')} | ${r.billedReadUnits} | ${r.billedWriteUnits} | ${r.kmsRequests} | | ${r.costPerMillionUsd} | ${r.p50Ms} | |`,
    calls('the same reveal with an API key', a),
    '',
    `the login key's state read strongly consistent: +${results.strongKeyState.readUnits} RRU a reveal with a login token, $${results.strongKeyState.usdPerMillionReveals} per million such reveals`,
    '',
    '| reveals per 15-minute login | $ per million reveals, login included | × a reveal alone |',
    '|---|---|---|',
    ...results.perReveal.map((p) => `| ${p.revealsPerLogin} | ${p.costPerMillionRevealsUsd} | ${p.overRevealAlone} |`),
  ];
  return rows.join('\n');
}
