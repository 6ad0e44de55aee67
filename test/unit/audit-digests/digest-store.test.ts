import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeDigestStore } from '../../../shared/audit-digests/digest-store.ts';
import type { AuditDigest } from '../../../shared/audit-digests/digest-record.ts';
import { insertedAudits } from '../../../shared/audit/index.ts';
import { ulidCeil, ulidFloor } from '../../../shared/platform/ids.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { makePager, type Pager } from '../../../shared/platform/store/pager.ts';
import { timedEntry } from './maker-fakes.ts';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const unusedPager = {} as Pager;
const store = makeDigestStore({ doc, tableName: 'T' }, unusedPager);
const WS = 'ws_01JAAAAAAAAAAAAAAAAAAAAAAA';
const DIGEST: AuditDigest = {
  workspaceId: WS,
  hourStart: '2026-12-01T09:00:00.000Z',
  count: 1,
  firstId: 'aud_1',
  lastId: 'aud_1',
  entriesSha256: 'a'.repeat(64),
  previousDigestSha256: null,
  signature: 'c2ln',
};

beforeEach(() => {
  dynamodb.reset();
});

describe('digest store', () => {
  it('reads the last digest with one strong Query of the digests, newest first, limit 1, and answers only its fields', async () => {
    // Prepare
    dynamodb
      .on(QueryCommand)
      .resolves({ Items: [{ ...keys.auditDigest(WS, DIGEST.hourStart), type: 'AuditDigest', ...DIGEST, createdAt: 'x' }] });

    // Act
    const last = await store.lastDigest(WS);

    // Assess
    expect(last).toEqual(DIGEST);
    expect(dynamodb.commandCalls(QueryCommand)).toHaveLength(1);
    expect(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :skp)',
      ExpressionAttributeValues: { ':pk': `WS#${WS}#AUDIT`, ':skp': 'DIGEST#' },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: 1,
    });
  });

  it('answers null for a workspace never digested', async () => {
    // Prepare
    dynamodb.on(QueryCommand).resolves({ Items: [] });

    // Act / Assess
    expect(await store.lastDigest(WS)).toBeNull();
  });

  it('reads entry pages with one Query of the id range, oldest first, packed entries expanded, stored fields dropped', async () => {
    // Prepare
    const own = { ...timedEntry(1, '2026-12-01T09:10:00.000Z'), accountId: '111122223333' };
    const packedOne = timedEntry(2, '2026-12-01T09:10:00.000Z');
    const second = timedEntry(3, '2026-12-01T09:20:00.000Z');
    const item = (entry: typeof own, more = {}) => ({
      ...keys.audit(WS, entry.id),
      type: 'AuditEntry',
      workspaceId: WS,
      ...entry,
      ...more,
    });
    dynamodb
      .on(QueryCommand)
      .resolvesOnce({
        Items: [
          item(own, {
            packed: [{ id: packedOne.id, target: packedOne.target, metadata: packedOne.metadata }],
            packedTargets: [packedOne.target],
          }),
        ],
        LastEvaluatedKey: keys.audit(WS, own.id),
      })
      .resolvesOnce({ Items: [item({ ...second, accountId: '1' })] });
    const from = Date.parse('2026-12-01T09:00:00.000Z');
    const to = Date.parse('2026-12-01T10:20:00.000Z') - 1;

    // Act
    const pages = [];
    for await (const page of store.entryPages(WS, from, to)) pages.push(page);

    // Assess
    expect(pages).toEqual([
      {
        entries: [timedEntry(1, '2026-12-01T09:10:00.000Z'), { ...packedOne, actorSub: own.actorSub, action: own.action }],
        reachedMs: Date.parse('2026-12-01T09:10:00.000Z'),
      },
      { entries: [second], reachedMs: Date.parse('2026-12-01T09:20:00.000Z') },
    ]);
    expect(dynamodb.commandCalls(QueryCommand)).toHaveLength(2);
    expect(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :sklo AND :skhi',
      ExpressionAttributeValues: { ':pk': `WS#${WS}#AUDIT`, ':sklo': `aud_${ulidFloor(from)}`, ':skhi': `aud_${ulidCeil(to)}` },
      ScanIndexForward: true,
    });
    expect(dynamodb.commandCalls(QueryCommand)[1]!.args[0].input).toMatchObject({ ExclusiveStartKey: keys.audit(WS, own.id) });
  });

  it('puts a digest item only where none is, and answers exists when one is', async () => {
    // Prepare
    dynamodb
      .on(PutCommand)
      .resolvesOnce({})
      .rejectsOnce(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }));
    const now = Date.parse('2026-12-01T10:20:05.000Z');

    // Act
    const first = await store.putDigest(DIGEST, now);
    const second = await store.putDigest(DIGEST, now);

    // Assess
    expect([first, second]).toEqual(['written', 'exists']);
    expect(dynamodb.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      ConditionExpression: 'attribute_not_exists(PK)',
      Item: {
        PK: `WS#${WS}#AUDIT`,
        SK: 'DIGEST#2026-12-01T09:00:00.000Z',
        type: 'AuditDigest',
        ...DIGEST,
        createdAt: '2026-12-01T10:20:05.000Z',
      },
    });
  });

  it('lists the digests of a range oldest first through the Pager, their own fields only, with a cursor for more', async () => {
    // Prepare
    const paged = makeDigestStore(
      { doc, tableName: 'T' },
      makePager({ doc, tableName: 'T' }, async () => Buffer.alloc(32, 7)),
    );
    const later = { ...DIGEST, hourStart: '2026-12-01T10:00:00.000Z' };
    const item = (digest: AuditDigest) => ({ ...keys.auditDigest(WS, digest.hourStart), type: 'AuditDigest', ...digest, createdAt: 'x' });
    dynamodb.on(QueryCommand).resolves({ Items: [item(DIGEST), item(later)] });
    const range = { since: Date.parse('2026-12-01T00:00:00.000Z'), until: Date.parse('2026-12-02T00:00:00.000Z') };

    // Act
    const page = await paged.listDigests(WS, { limit: 1 }, range);

    // Assess
    expect(page.items).toEqual([DIGEST]);
    expect(page.hasMore).toBe(true);
    expect(page.nextCursor).toEqual(expect.any(String));
    expect(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :sklo AND :skhi',
      ExpressionAttributeValues: { ':sklo': 'DIGEST#2026-12-01T00:00:00.000Z', ':skhi': 'DIGEST#2026-12-02T00:00:00.000Z' },
      ScanIndexForward: true,
      Limit: 2,
    });
  });

  it('lists every workspace from the GSI2 list, ids only', async () => {
    // Prepare
    dynamodb.on(QueryCommand).resolves({ Items: [{ GSI2SK: WS }, { GSI2SK: 'ws_2' }] });

    // Act
    const ids = await store.workspaceIds();

    // Assess
    expect(ids).toEqual([WS, 'ws_2']);
    expect(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      IndexName: 'GSI2',
      ExpressionAttributeValues: { ':pk': 'WORKSPACES' },
    });
  });
});

describe('digest items beside the audit entries', () => {
  it('sort outside every range the audit log reads (the aud_ prefix)', () => {
    // Prepare
    const digestSk = keys.auditDigest(WS, DIGEST.hourStart).SK as string;

    // Act / Assess: below the lowest aud_ key, so neither begins_with(aud_) nor BETWEEN aud_… can reach it.
    expect(digestSk.startsWith('aud_')).toBe(false);
    expect(digestSk < `aud_${ulidFloor(0)}`).toBe(true);
  });

  it('are no entries to the stream fan-out', () => {
    // Prepare
    const record = {
      eventName: 'INSERT' as const,
      dynamodb: { NewImage: marshall({ ...keys.auditDigest(WS, DIGEST.hourStart), type: 'AuditDigest', ...DIGEST }) as never },
    };

    // Act / Assess
    expect(insertedAudits(record)).toEqual([]);
  });
});
