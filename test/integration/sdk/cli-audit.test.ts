import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { makeFolderDigestBucket } from '../../../shared/audit-digests/digest-bucket.ts';
import { makeDigestMaker } from '../../../shared/audit-digests/digest-maker.ts';
import { keyringDigestSigner } from '../../../shared/audit-digests/digest-signer-wiring.ts';
import { makeDigestStore } from '../../../shared/audit-digests/digest-store.ts';
import { putAuditEntries, systemAuditEntry, type AuditEntry } from '../../../shared/audit/index.ts';
import { LOCAL_DIGEST_KEY_FILE } from '../../../shared/platform/crypto/local-keyring.ts';
import { newId, ulidFloor } from '../../../shared/platform/ids.ts';
import { makeCursorKeyLoader } from '../../../shared/platform/store/cursor-key.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { makePager } from '../../../shared/platform/store/pager.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { runCli } from '../../support/cli.ts';

/**
 * `secrets audit verify` against the local stack (decisions.md v1.4, "Audit streams and tamper evidence"): a
 * workspace's entries of 2020 digested by the maker with the stack's own key, then verified by the CLI through the API
 * (and from the bucket's copy); each kind of tampering in the table is named and exits 1, untouched exits 0.
 */

const ms = (at: string) => Date.parse(at);
const RANGE = ['--since', '2020-01-01T00:00:00Z', '--until', '2020-01-02T00:00:00Z'];
let made = 0;
let cache: string;

/** An entry of `time` with an id of that time (newId's ULIDs are monotonic in a process: it would mint ids of now). */
const at = (time: string, target: string): AuditEntry => ({
  ...systemAuditEntry(newId('account'), 'secret.reveal', target, { n: made }, ms(time)),
  id: `aud_${ulidFloor(ms(time)).slice(0, 10)}${String(++made).padStart(16, '0')}`,
});

/** A workspace with 4 entries of 2020 (two at 09:xx, two at 11:xx) and their 2 digests, in the table and a bucket folder. */
async function digested() {
  const ws = await newWorkspace();
  // The stack makes its key on first use: ask for it first, so the maker signs with the key the stack answers.
  expect((await call('GET', '/api/v1/audit/public-key', { token: ws.apiKey })).status).toBe(200);
  const entries = [
    at('2020-01-01T09:10:00.000Z', 'sec_a'),
    at('2020-01-01T09:20:00.000Z', 'sec_b'),
    at('2020-01-01T11:05:00.000Z', 'sec_c'),
    at('2020-01-01T11:06:00.000Z', 'sec_d'),
  ];
  const { doc, tableName } = localStore();
  const db = { doc, tableName };
  await putAuditEntries(db, ws.workspaceId, entries);
  const bucket = join(inject('localDir'), `audit-bucket-cli-${made}`);
  const maker = makeDigestMaker({
    store: makeDigestStore(db, makePager(db, makeCursorKeyLoader(db))),
    workspaces: async () => [ws.workspaceId],
    bucket: makeFolderDigestBucket(bucket),
    signer: keyringDigestSigner(join(inject('localDir'), LOCAL_DIGEST_KEY_FILE)),
    periodSeconds: 3600,
    log: { error: () => undefined },
  });
  expect(await maker.run(ms('2020-01-01T12:30:00.000Z'))).toEqual({ workspaces: 1, digests: 2, failed: 0 });
  return { ws, entries, bucket, doc, tableName };
}

/** `secrets audit verify …` with the workspace's API key. */
const verify = (apiKey: string, args: string[] = []) =>
  runCli(['audit', 'verify', ...RANGE, ...args], {
    cwd: cache,
    env: { ...process.env, SECRETS_API_URL: inject('stack').baseUrl, SECRETS_TOKEN: apiKey, XDG_CACHE_HOME: cache },
  });

beforeAll(() => {
  cache = mkdtempSync(join(tmpdir(), 'cli-audit-'));
});

describe('secrets audit verify', () => {
  it('refuses a time that is not ISO 8601 with its offset, and an until before the since (exit 2, nothing read)', async () => {
    // Act
    const bad = await runCli(['audit', 'verify', '--since', 'yesterday'], { cwd: cache, env: { ...process.env, XDG_CACHE_HOME: cache } });
    const backwards = await runCli(['audit', 'verify', '--since', '2020-01-02T00:00:00Z', '--until', '2020-01-01T00:00:00Z'], {
      cwd: cache,
      env: { ...process.env, SECRETS_API_URL: inject('stack').baseUrl, SECRETS_TOKEN: 'sk_live_unused', XDG_CACHE_HOME: cache },
    });
    // Assess
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("option '--since <time>' argument 'yesterday' is invalid")]);
    expect([backwards.code, backwards.stderr]).toEqual([2, expect.stringContaining('--until: must not be before --since')]);
  });

  it('exits 0 with what it verified, through the API and from the bucket copy', async () => {
    // Prepare
    const { ws, bucket } = await digested();
    // Act
    const api = await verify(ws.apiKey);
    const copy = await verify(ws.apiKey, ['--from', bucket]);
    // Assess
    expect([api.code, api.stdout]).toEqual([0, 'verified 4 entries in 2 digests\n']);
    expect([copy.code, copy.stdout]).toEqual([0, 'verified 4 entries in 2 digests\n']);
  });

  it.each([
    ['change one entry', 'entry-changed', 'update', 2],
    ['delete one entry', 'entry-missing', 'delete', 3],
    ['reorder two entries (swap their contents)', 'entry-changed', 'swap', 0],
  ] as const)('names the first break when someone with table access would %s: %s, exit 1', async (_what, named, how, which) => {
    // Prepare
    const { ws, entries, doc, tableName } = await digested();
    const key = (entry: AuditEntry) => keys.audit(ws.workspaceId, entry.id);
    if (how === 'update')
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key(entries[which]!),
          UpdateExpression: 'SET target = :t',
          ExpressionAttributeValues: { ':t': 'sec_x' },
        }),
      );
    if (how === 'delete') await doc.send(new DeleteCommand({ TableName: tableName, Key: key(entries[which]!) }));
    if (how === 'swap') {
      const [a, b] = await Promise.all(
        [0, 1].map(async (i) => (await doc.send(new GetCommand({ TableName: tableName, Key: key(entries[i]!) }))).Item!),
      );
      await doc.send(new PutCommand({ TableName: tableName, Item: { ...b, PK: a!.PK, SK: a!.SK, id: a!.id } }));
      await doc.send(new PutCommand({ TableName: tableName, Item: { ...a, PK: b!.PK, SK: b!.SK, id: b!.id } }));
    }
    // Act
    const run = await verify(ws.apiKey);
    // Assess
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^${named} \\(.*period 2020-01-01T(09|11):00:00.000Z\\)\\n$`));
  });

  it.each([
    ['alter a digest', 'digest-changed', 'update'],
    ['remove a digest', 'digest-missing', 'delete'],
  ] as const)('names it when someone would %s: %s, exit 1', async (_what, named, how) => {
    // Prepare
    const { ws, doc, tableName } = await digested();
    const digest = keys.auditDigest(ws.workspaceId, '2020-01-01T09:00:00.000Z');
    if (how === 'update')
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: digest,
          UpdateExpression: 'SET #c = :c',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':c': 1 },
        }),
      );
    if (how === 'delete') await doc.send(new DeleteCommand({ TableName: tableName, Key: digest }));
    // Act
    const run = await verify(ws.apiKey);
    // Assess
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^${named} \\(.*2020-01-01T09:00:00.000Z\\)\\n$`));
  });
});
