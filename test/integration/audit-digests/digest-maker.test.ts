import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFolderDigestBucket } from '../../../shared/audit-digests/digest-bucket.ts';
import { canonicalLines } from '../../../shared/audit-digests/digest-canonical.ts';
import { makeDigestMaker } from '../../../shared/audit-digests/digest-maker.ts';
import { makeLocalDigestSigner } from '../../../shared/audit-digests/digest-signer.ts';
import { makeDigestStore } from '../../../shared/audit-digests/digest-store.ts';
import { verifyAudit } from '../../../shared/audit-digests/digest-verify.ts';
import { makeAuditStore, putAuditEntries, systemAuditEntry, type AuditEntry } from '../../../shared/audit/index.ts';
import { makeCursorKeyLoader } from '../../../shared/platform/store/cursor-key.ts';
import { makePager } from '../../../shared/platform/store/pager.ts';
import { newId, ulidFloor } from '../../../shared/platform/ids.ts';
import { localStore, newWorkspace } from '../../support/api.ts';
import { p256 } from '../../unit/audit-digests/support.ts';

/**
 * The digest maker against DynamoDB Local, called directly with a fixed `now` (as the scheduled function calls it),
 * so no shortened period slows the local stack: entries written in the past are digested per period, chained,
 * written to a folder bucket, listed by the digest store apart from the audit log, and verified with the public key.
 */

const ms = (at: string) => Date.parse(at);
let folder: string;
let workspaceId: string;
const accountId = newId('account');

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'audit-bucket-'));
  const ws = await newWorkspace({ allowlisted: false });
  workspaceId = ws.workspaceId;
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

function wiring() {
  const { doc, tableName } = localStore();
  const db = { doc, tableName };
  const pager = makePager(db, makeCursorKeyLoader(db));
  const key = p256();
  const store = makeDigestStore(db, pager);
  const maker = makeDigestMaker({
    store,
    // Only this file's workspace: the table holds every other test file's too.
    workspaces: async () => (await store.workspaceIds()).filter((id) => id === workspaceId),
    bucket: makeFolderDigestBucket(folder),
    signer: makeLocalDigestSigner(key.privateKeyPem),
    periodSeconds: 3600,
    log: { error: () => undefined },
  });
  return { db, pager, key, store, maker };
}

let made = 0;
/**
 * An entry made at `time` with an id of that time: newId's ULIDs are monotonic in a process, so after newWorkspace
 * (now) it would mint ids of now for times in the past, which is not how a function writes its entries.
 */
const at = (time: string, target: string, metadata: Record<string, unknown> = {}): AuditEntry => ({
  ...systemAuditEntry(accountId, 'secret.reveal', target, metadata, ms(time)),
  id: `aud_${ulidFloor(ms(time)).slice(0, 10)}${String(++made).padStart(16, '0')}`,
});

describe('audit digest maker on DynamoDB Local', () => {
  it('digests every period with entries, packed ones included, chained and verifiable, and nothing twice', async () => {
    // Prepare: three entries in 2020-01-01 09:00 (two packed in one item), one at 11:00, none at 10:00.
    const { db, pager, key, store, maker } = wiring();
    const first = at('2020-01-01T09:10:00.000Z', 'sec_a');
    const packed = [at('2020-01-01T09:10:00.000Z', 'sec_b'), at('2020-01-01T09:10:00.000Z', 'sec_c')];
    const later = at('2020-01-01T11:05:00.000Z', 'sec_d', { note: 'ünïcode' });
    await putAuditEntries(db, workspaceId, [{ ...first, packed }, later]);
    const now = ms('2020-01-01T12:30:00.000Z');

    // Act
    const run = await maker.run(now);
    const again = await maker.run(now);

    // Assess
    expect(await store.workspaceIds()).toContain(workspaceId);
    expect(run).toEqual({ workspaces: 1, digests: 2, failed: 0 });
    expect(again).toEqual({ workspaces: 1, digests: 0, failed: 0 });
    const range = { since: ms('2020-01-01T00:00:00.000Z'), until: ms('2020-01-02T00:00:00.000Z') };
    const digests = (await store.listDigests(workspaceId, { limit: 10 }, range)).items;
    expect(digests.map((d) => [d.hourStart, d.count])).toEqual([
      ['2020-01-01T09:00:00.000Z', 3],
      ['2020-01-01T11:00:00.000Z', 1],
    ]);
    const log = await makeAuditStore(pager).listAudit(workspaceId, { limit: 100 }, range);
    expect(log.items).toHaveLength(4);
    const gz = await readFile(join(folder, workspaceId, '2020-01-01T09:00:00.000Z.jsonl.gz'));
    expect(gunzipSync(gz).toString('utf8')).toBe(canonicalLines(log.items.filter((e) => e.target !== 'sec_d')));
    const verified = verifyAudit({
      publicKeyPem: key.publicKeyPem,
      entries: log.items,
      digests,
      since: '2020-01-01T00:00:00.000Z',
      until: '2020-01-02T00:00:00.000Z',
      now,
    });
    expect(verified).toEqual({ ok: true, entries: 4, digests: 2 });
  });
});
