import { describe, expect, it, vi } from 'vitest';
import { makeListSecrets } from '../../../shared/aws/list-secrets.ts';
import type { SecretRecord } from '../../../shared/secrets/index.ts';

const PLACE = { region: 'us-east-1', account: '000000000000' };
const record = (key: string): SecretRecord => ({
  id: `sec_${key.padEnd(26, '0')}`,
  key,
  projectId: 'proj_1',
  projectSlug: 'app',
  environmentId: 'env_1',
  envSlug: 'prod',
  currentVersion: 2,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-02T00:00:00.000Z',
});
const ALL = [record('DB_URL'), record('DB_USER'), record('API_KEY')];

type Options = { matching?: (r: SecretRecord) => boolean; newestFirst?: boolean };
type Listed = { SecretList: { Name: string; DeletedDate?: number }[]; NextToken?: string };

/**
 * The operation over a search that applies the filter it is given to three secrets, and a list with the deleted
 * ones that adds a fourth, deleted, secret.
 */
function harness(live: SecretRecord[] = ALL, rotations: { secretId: string }[] = []) {
  const search = vi.fn(async (_principal: unknown, _q: unknown, _page: unknown, options: Options = {}) => ({
    items: live.filter((r) => !options.matching || options.matching(r)),
    nextCursor: null,
    hasMore: false,
  }));
  const gone = { ...record('OLD_KEY'), deletedAt: '2026-11-03T00:00:00.500Z', deletedBy: 'key_x', purgeAt: '2026-12-03T00:00:00.000Z' };
  const listWithLive = vi.fn(async (_principal: unknown, _page: unknown, options: Options) => ({
    items: [...ALL, gone].filter((r) => !options.matching || options.matching(r)),
    nextCursor: 'c2',
    hasMore: true,
  }));
  const rotationRecords = vi.fn(async () => new Map(rotations.map((rotation) => [rotation.secretId, rotation])));
  const op = makeListSecrets({ search } as never, { listWithLive } as never, PLACE, { rotationRecords });
  const list = async (input: object) => (await op.handle({} as never, input as never, {} as never)) as Listed;
  const names = async (input: object) => (await list(input)).SecretList.map((s) => s.Name);
  return { names, list, op, search, listWithLive, rotationRecords };
}

describe('ListSecrets filters', () => {
  it('name is a prefix; values of one filter are alternatives, filters all apply, ! negates', async () => {
    const { names } = harness();
    expect(await names({ Filters: [{ Key: 'name', Values: ['app/prod/DB_'] }] })).toEqual(['app/prod/DB_URL', 'app/prod/DB_USER']);
    expect(await names({ Filters: [{ Key: 'name', Values: ['app/prod/API', 'app/prod/DB_URL'] }] })).toEqual([
      'app/prod/DB_URL',
      'app/prod/API_KEY',
    ]);
    expect(
      await names({
        Filters: [
          { Key: 'name', Values: ['app/prod/DB_'] },
          { Key: 'name', Values: ['!app/prod/DB_USER'] },
        ],
      }),
    ).toEqual(['app/prod/DB_URL']);
  });

  it('description is a prefix whatever the case (decisions.md v1.4)', async () => {
    const { names } = harness([{ ...record('DB_URL'), description: 'Legacy replica of the orders DB' }]);
    expect(await names({ Filters: [{ Key: 'description', Values: ['legacy rep'] }] })).toEqual(['app/prod/DB_URL']);
    expect(await names({ Filters: [{ Key: 'description', Values: ['LEGACY'] }] })).toEqual(['app/prod/DB_URL']);
    // A prefix, not a word: the middle of the description matches nothing.
    expect(await names({ Filters: [{ Key: 'description', Values: ['replica'] }] })).toEqual([]);
  });

  it('all matches word by word, whatever the case: spaces, punctuation, camelCase and digits split words', async () => {
    const tagged = { ...record('ordersDb2Url'), description: 'legacy replica', tags: { 'cost-center': 'FinanceOps' } };
    const { names } = harness([...ALL, tagged]);
    const all = (value: string) => names({ Filters: [{ Key: 'all', Values: [value] }] });
    expect(await all('rep')).toEqual(['app/prod/ordersDb2Url']);
    expect(await all('API')).toEqual(['app/prod/API_KEY']);
    expect(await all('ke')).toEqual(['app/prod/API_KEY']);
    expect(await all('db')).toEqual(['app/prod/DB_URL', 'app/prod/DB_USER', 'app/prod/ordersDb2Url']);
    expect(await all('2')).toEqual(['app/prod/ordersDb2Url']);
    expect(await all('ops')).toEqual(['app/prod/ordersDb2Url']);
    expect(await all('CENTER')).toEqual(['app/prod/ordersDb2Url']);
    // Any word of the value: "zzz legacy" matches through "legacy".
    expect(await all('zzz legacy')).toEqual(['app/prod/ordersDb2Url']);
    // Not a word's prefix: "rl" is inside URL, "eplica" inside replica.
    expect(await all('rl')).toEqual([]);
    expect(await all('eplica')).toEqual([]);
    expect(await all('!db')).toEqual(['app/prod/API_KEY']);
  });

  it('description and tags match nothing yet (secrets carry none), and their negation everything', async () => {
    const { names } = harness();
    expect(await names({ Filters: [{ Key: 'description', Values: ['x'] }] })).toEqual([]);
    expect(await names({ Filters: [{ Key: 'tag-key', Values: ['!env'] }] })).toHaveLength(3);
  });

  it('passes MaxResults and NextToken to the search as its page, newest first unless SortOrder is asc', async () => {
    const { search, names } = harness();
    await names({ MaxResults: 7, NextToken: 'c1' });
    expect(search.mock.calls[0]![2]).toEqual({ limit: 7, cursor: 'c1' });
    expect(search.mock.calls[0]![3]).toMatchObject({ newestFirst: true });
    await names({ SortOrder: 'desc' });
    expect(search.mock.calls[1]![3]).toMatchObject({ newestFirst: true });
    await names({ SortOrder: 'asc' });
    expect(search.mock.calls[2]![3]).toMatchObject({ newestFirst: false });
  });

  it('IncludePlannedDeletion lists through the deleted-secrets service, with DeletedDate on the deleted ones only', async () => {
    const { search, list, listWithLive } = harness();
    const listed = await list({ IncludePlannedDeletion: true, SortOrder: 'asc', MaxResults: 3, NextToken: 'c1' });
    expect(search).not.toHaveBeenCalled();
    expect(listWithLive.mock.calls[0]![1]).toEqual({ limit: 3, cursor: 'c1' });
    expect(listWithLive.mock.calls[0]![2]).toMatchObject({ newestFirst: false });
    expect(listed.SecretList.map((s) => [s.Name, s.DeletedDate])).toEqual([
      ['app/prod/DB_URL', undefined],
      ['app/prod/DB_USER', undefined],
      ['app/prod/API_KEY', undefined],
      ['app/prod/OLD_KEY', Date.parse('2026-11-03T00:00:00.500Z') / 1000],
    ]);
    expect(listed.NextToken).toBe('c2');
    // Filters apply to the deleted ones as to the others.
    const filtered = await list({ IncludePlannedDeletion: true, Filters: [{ Key: 'name', Values: ['app/prod/OLD'] }] });
    expect(filtered.SecretList.map((s) => s.Name)).toEqual(['app/prod/OLD_KEY']);
  });

  it('leaves the deleted-secrets service alone without IncludePlannedDeletion (or with it false)', async () => {
    const { names, listWithLive } = harness();
    expect(await names({ IncludePlannedDeletion: false })).not.toContain('app/prod/OLD_KEY');
    expect(listWithLive).not.toHaveBeenCalled();
  });

  it('entries carry RotationEnabled and the rotation fields exactly as DescribeSecret does (decisions.md v1.4)', async () => {
    const rotated = {
      secretId: ALL[0]!.id,
      enabled: true,
      functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:rotate',
      rules: { AutomaticallyAfterDays: 30 },
      lastRotatedAt: '2026-11-03T00:00:00.000Z',
      nextRotationAt: '2026-12-03T00:00:00.000Z',
    };
    const { list, rotationRecords } = harness(ALL, [rotated]);
    const entries = (await list({})).SecretList as unknown as Record<string, unknown>[];
    expect(rotationRecords).toHaveBeenCalledOnce();
    expect(entries[0]).toMatchObject({
      RotationEnabled: true,
      RotationLambdaARN: rotated.functionArn,
      RotationRules: { AutomaticallyAfterDays: 30 },
      LastRotatedDate: Date.parse(rotated.lastRotatedAt) / 1000,
      NextRotationDate: Date.parse(rotated.nextRotationAt) / 1000,
    });
    expect(entries[1]).toMatchObject({ RotationEnabled: false });
    expect(entries[1]).not.toHaveProperty('RotationRules');
  });
});
