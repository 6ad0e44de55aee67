import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { auditEntry } from '../../../shared/audit/audit-entry.ts';
import { hashToken } from '../../../shared/access/tokens.ts';
import { LOGINS_PER_MINUTE, REFUSED_LOGINS_PER_MINUTE } from '../../../shared/access/login-service.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import type { LoginWindow } from '../../../shared/access/login-store.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { iamLogin, iamLoginFrom, signedRequest, stsIdentity, type StsIdentity } from '../../support/login.ts';

/**
 * The login budgets (decisions.md, "Hardening v1.3"), end to end on the local stack: 10 refused logins per access key,
 * source address and clock minute, 60 successful ones per access key; past either, 429 RATE_LIMITED with
 * Retry-After before any check, and no audit entry. The local front gives the function the connection's address as
 * API Gateway gives `sourceIp`, so a test logs in from `127.0.0.2`, `127.0.0.3`… (all loopback) to be two callers.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
let ws: Ws;
let workload: StsIdentity;

const ROLE = 'arn:aws:iam::123456789012:role/budget-workload';
/** Refused before any call to STS: another endpoint than the configured one. */
const REFUSED = { url: 'https://sts.amazonaws.com/', method: 'POST', headers: {}, body: '' };

const createKey = async () => {
  const answer = await call('POST', '/api/v1/access-keys', {
    token: ws.apiKey,
    body: { name: 'budget', auth: { type: 'aws_iam', principalArns: [ROLE] } },
  });
  expect(answer.status).toBe(201);
  return answer.body.data as { id: string; identityId: string };
};

const auditOf = async (target: string, action: string) =>
  (await call('GET', `/api/v1/audit?target=${target}&action=${action}&limit=200`, { token: ws.apiKey })).body.data as {
    metadata: Record<string, unknown>;
  }[];

/**
 * A clock minute's window must not end mid-test (it would make every budget whole again): starts in the first 40
 * seconds of a minute, waiting for the next one if need be. A wait, not a timed assertion.
 */
async function startOfWindow(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second > 40) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
}

const expectRateLimited = (answer: { status: number; headers: Headers; body: any }, budget: RegExp) => {
  expect([answer.status, answer.body.error?.code]).toEqual([429, 'RATE_LIMITED']);
  expect(answer.body.error.message).toMatch(budget);
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
};

beforeAll(async () => {
  ws = await newWorkspace();
  workload = await stsIdentity(ROLE);
});

describe('refused logins: 10 per access key and source address a minute', () => {
  it('12 refused from one address: 10 are 401 and audited, the 11th and 12th 429 with Retry-After and no entry; a good login from another address goes through', async () => {
    // Prepare
    await startOfWindow();
    const key = await createKey();
    // Act
    const refused = [];
    for (let i = 0; i < 12; i++) refused.push(await iamLoginFrom('127.0.0.2', key.id, REFUSED));
    const elsewhere = await iamLoginFrom('127.0.0.3', key.id, await signedRequest(workload));
    const here = await iamLoginFrom('127.0.0.2', key.id, await signedRequest(workload));
    // Assess
    expect(refused.slice(0, 10).map((answer) => [answer.status, answer.body.error?.code])).toEqual(Array(10).fill([401, 'AUTH_REQUIRED']));
    for (const answer of refused.slice(10))
      expectRateLimited(answer, /at most 10 refused logins per access key and source address per minute/);
    const denied = await auditOf(key.id, 'access_key.login_denied');
    expect(denied).toHaveLength(REFUSED_LOGINS_PER_MINUTE);
    expect(denied.every((entry) => entry.metadata.reason === 'endpoint')).toBe(true);
    // Another address's refusals never refuse a good login.
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data.token).toMatch(/^st_/);
    // From the address that spent its budget even a good login is 429, before any check, and not audited.
    expectRateLimited(here, /refused logins/);
    expect(await auditOf(key.id, 'access_key.login')).toHaveLength(1);
    expect(await auditOf(key.id, 'access_key.login_denied')).toHaveLength(REFUSED_LOGINS_PER_MINUTE);
  }, 90_000);

  it('12 refused at once from one address: exactly 10 are counted, answered 401 and audited, 2 are 429', async () => {
    // Prepare
    await startOfWindow();
    const key = await createKey();
    // Act
    const answers = await Promise.all(Array.from({ length: 12 }, () => iamLoginFrom('127.0.0.4', key.id, REFUSED)));
    // Assess
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    expect(await auditOf(key.id, 'access_key.login_denied')).toHaveLength(REFUSED_LOGINS_PER_MINUTE);
  }, 90_000);
});

describe('successful logins: 60 per access key a minute', () => {
  it('the 61st good login in a minute is 429 with Retry-After and not audited; then so is a refused one, before any check', async () => {
    // Prepare
    await startOfWindow();
    const key = await createKey();
    // Act
    const statuses: number[] = [];
    for (let i = 0; i < LOGINS_PER_MINUTE; i++) statuses.push((await iamLogin(key.id, await signedRequest(workload))).status);
    const sixtyFirst = await iamLogin(key.id, await signedRequest(workload));
    const refusedNow = await iamLogin(key.id, REFUSED);
    // Assess
    expect(statuses).toEqual(Array(LOGINS_PER_MINUTE).fill(200));
    expectRateLimited(sixtyFirst, /at most 60 logins per access key per minute/);
    expectRateLimited(refusedNow, /at most 60 logins per access key per minute/);
    expect(await auditOf(key.id, 'access_key.login')).toHaveLength(LOGINS_PER_MINUTE);
    expect(await auditOf(key.id, 'access_key.login_denied')).toEqual([]);
  }, 120_000);
});

describe('the counts are conditional writes: exact when the read before any check saw room', () => {
  const { doc, tableName, store } = localStore();
  const window = (): LoginWindow => ({ minute: Math.floor(Date.now() / 60_000), source: '127.0.0.9' });
  const setCount = (key: { PK: string; SK: string }, count: number) =>
    doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #count = :count',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':count': count },
      }),
    );

  it("a refusal past the address's budget is neither counted nor audited", async () => {
    // Prepare: the budget spent by requests the read did not see yet
    const key = await createKey();
    const target = (await store.findLoginTarget(key.id))!;
    const at = window();
    const counter = keys.loginRefusalCounter(ws.workspaceId, key.id, at.source, at.minute);
    await setCount(counter, REFUSED_LOGINS_PER_MINUTE);
    const actor = { actorSub: key.identityId, kind: 'machine' as const, accountId: target.workspace!.accountId };
    const entry = auditEntry(actor, 'access_key.login_denied', key.id, { method: 'aws_iam', reason: 'endpoint' }, Date.now());
    // Act
    const counted = await store.recordLoginRefusal(ws.workspaceId, key.id, at, REFUSED_LOGINS_PER_MINUTE, entry);
    // Assess
    expect(counted).toBe(false);
    expect((await doc.send(new GetCommand({ TableName: tableName, Key: counter }))).Item?.count).toBe(REFUSED_LOGINS_PER_MINUTE);
    expect(await auditOf(key.id, 'access_key.login_denied')).toEqual([]);
  });

  it("a login past the key's budget issues no token and writes no entry: its count is in the transaction", async () => {
    // Prepare
    const key = await createKey();
    const target = (await store.findLoginTarget(key.id))!;
    const at = window();
    await setCount(keys.loginCounter(ws.workspaceId, key.id, at.minute), LOGINS_PER_MINUTE);
    const tokenHash = hashToken(`st_budget_test_${key.id}`);
    const expiresAt = new Date(Date.now() + 900_000).toISOString();
    const actor = { actorSub: key.identityId, kind: 'machine' as const, accountId: target.workspace!.accountId };
    // Act
    const issued = await store.issueLoginToken({
      workspaceId: ws.workspaceId,
      record: target.record,
      revision: target.revision,
      tokenHash,
      token: {
        kind: 'machine',
        workspaceId: ws.workspaceId,
        credentialId: key.id,
        actorSub: key.identityId,
        expiresAt,
        revokedAt: null,
        lastUsedAt: null,
        keyRevision: 0,
      },
      audit: auditEntry(actor, 'access_key.login', key.id, { accessKeyId: key.id, method: 'aws_iam', principal: ROLE }, Date.now()),
      createdAt: new Date().toISOString(),
      window: at,
      maxLogins: LOGINS_PER_MINUTE,
    });
    // Assess
    expect(issued).toBe('limited');
    expect((await doc.send(new GetCommand({ TableName: tableName, Key: keys.token(tokenHash) }))).Item).toBeUndefined();
    expect(await auditOf(key.id, 'access_key.login')).toEqual([]);
  });
});
