import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { makeFolderDigestBucket } from '../../../shared/audit-digests/digest-bucket.ts';
import { makeDigestMaker } from '../../../shared/audit-digests/digest-maker.ts';
import { keyringDigestSigner } from '../../../shared/audit-digests/digest-signer-wiring.ts';
import { makeDigestStore } from '../../../shared/audit-digests/digest-store.ts';
import { verifyAudit } from '../../../shared/audit-digests/digest-verify.ts';
import { putAuditEntries, systemAuditEntry, type AuditEntry } from '../../../shared/audit/index.ts';
import { LOCAL_DIGEST_KEY_FILE } from '../../../shared/platform/crypto/local-keyring.ts';
import { newId, ulidFloor } from '../../../shared/platform/ids.ts';
import { makeCursorKeyLoader } from '../../../shared/platform/store/cursor-key.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { makePager } from '../../../shared/platform/store/pager.ts';
import { call, localStore, newWorkspace, userToken, type ApiAnswer } from '../../support/api.ts';

/**
 * The digests through the API (decisions.md v1.4, "Audit streams and tamper evidence"): what `secrets audit verify`
 * reads. Digests of 2020 are made here by the maker, signed with the local stack's own key (the file the stack's
 * audit route answers the public key of), so no shortened period slows the stack; the log, the digests and the key
 * are then read through the API alone and verified, and a change to one entry in the table is named.
 */

const ms = (at: string) => Date.parse(at);
const SINCE = '2020-01-01T00:00:00.000Z';
const UNTIL = '2020-01-02T00:00:00.000Z';
let ws: Awaited<ReturnType<typeof newWorkspace>>;
let made = 0;

/** An entry of `time` with an id of that time (newId's ULIDs are monotonic in a process: it would mint ids of now). */
const at = (time: string, target: string): AuditEntry => ({
  ...systemAuditEntry(newId('account'), 'secret.reveal', target, { note: 'digested' }, ms(time)),
  id: `aud_${ulidFloor(ms(time)).slice(0, 10)}${String(++made).padStart(16, '0')}`,
});

/** Every page of a list route, following its cursor. */
async function all(path: string, token: string) {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const answer: ApiAnswer = await call('GET', `${path}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    items.push(...answer.body.data);
    cursor = answer.body.meta.page.nextCursor;
  } while (cursor);
  return items;
}

/** What `secrets audit verify --since SINCE --until UNTIL` reads, through the API only, and its verdict. */
async function verifyThroughApi(token: string) {
  const { pem } = (await call('GET', '/api/v1/audit/public-key', { token })).body.data;
  const range = `since=${SINCE}&until=${UNTIL}`;
  const entries = (await all(`/api/v1/audit?${range}&limit=100`, token)) as AuditEntry[];
  const digests = (await all(`/api/v1/audit/digests?${range}`, token)) as never[];
  return verifyAudit({ publicKeyPem: pem, entries, digests, since: SINCE, until: UNTIL, now: ms(UNTIL) });
}

const entries = [at('2020-01-01T09:10:00.000Z', 'sec_a'), at('2020-01-01T09:20:00.000Z', 'sec_b'), at('2020-01-01T11:05:00.000Z', 'sec_c')];

beforeAll(async () => {
  ws = await newWorkspace();
  // The stack makes its key on the first use: ask it first, so the maker signs with the key the stack has.
  const first = await call('GET', '/api/v1/audit/public-key', { token: ws.apiKey });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const { doc, tableName } = localStore();
  const db = { doc, tableName };
  await putAuditEntries(db, ws.workspaceId, entries);
  const store = makeDigestStore(db, makePager(db, makeCursorKeyLoader(db)));
  const maker = makeDigestMaker({
    store,
    workspaces: async () => [ws.workspaceId],
    bucket: makeFolderDigestBucket(join(inject('localDir'), 'audit-bucket-test')),
    signer: keyringDigestSigner(join(inject('localDir'), LOCAL_DIGEST_KEY_FILE)),
    periodSeconds: 3600,
    log: { error: () => undefined },
  });
  expect(await maker.run(ms('2020-01-01T12:30:00.000Z'))).toEqual({ workspaces: 1, digests: 2, failed: 0 });
});

describe('the audit digests through the API', () => {
  it('answers the public key to any credential, the digests to admins, oldest first, and they verify', async () => {
    // Act
    const viewer = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: 'viewer' });
    const key = await call('GET', '/api/v1/audit/public-key', { token: viewer });
    const refused = await call('GET', '/api/v1/audit/digests', { token: viewer });
    const listed = await call('GET', `/api/v1/audit/digests?since=${SINCE}&until=${UNTIL}`, { token: ws.apiKey });
    const verdict = await verifyThroughApi(ws.apiKey);
    // Assess
    expect(key.body.data.pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(listed.body.data.map((d: { hourStart: string; count: number }) => [d.hourStart, d.count])).toEqual([
      ['2020-01-01T09:00:00.000Z', 2],
      ['2020-01-01T11:00:00.000Z', 1],
    ]);
    expect(listed.body.data[0]).toEqual({
      workspaceId: ws.workspaceId,
      hourStart: '2020-01-01T09:00:00.000Z',
      count: 2,
      firstId: entries[0]!.id,
      lastId: entries[1]!.id,
      entriesSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      previousDigestSha256: null,
      signature: expect.any(String),
    });
    expect(listed.body.data[1].previousDigestSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(verdict).toEqual({ ok: true, entries: 3, digests: 2 });
  });

  it('refuses a range whose until is before its since, naming until', async () => {
    // Act
    const refused = await call('GET', `/api/v1/audit/digests?since=${UNTIL}&until=${SINCE}`, { token: ws.apiKey });
    // Assess
    expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([
      400,
      'VALIDATION_ERROR',
      'until: must not be before since',
    ]);
  });

  it('names an entry changed in the table after its period was digested', async () => {
    // Prepare
    const { doc, tableName } = localStore();
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.audit(ws.workspaceId, entries[2]!.id),
        UpdateExpression: 'SET target = :other',
        ExpressionAttributeValues: { ':other': 'sec_elsewhere' },
      }),
    );
    // Act
    const verdict = await verifyThroughApi(ws.apiKey);
    // Assess
    expect(verdict).toMatchObject({ ok: false, break: 'entry-changed', hourStart: '2020-01-01T11:00:00.000Z' });
  });
});
