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

/** The operation over a search that applies the filter it is given to three secrets. */
function harness() {
  const search = vi.fn(async (_principal: unknown, _q: unknown, _page: unknown, matching?: (r: SecretRecord) => boolean) => ({
    items: ALL.filter((r) => !matching || matching(r)),
    nextCursor: null,
    hasMore: false,
  }));
  const op = makeListSecrets({ search } as never, PLACE);
  const names = async (input: object) =>
    ((await op.handle({} as never, input as never, {} as never)) as { SecretList: { Name: string }[] }).SecretList.map((s) => s.Name);
  return { names, op, search };
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
    expect(await names({ Filters: [{ Key: 'all', Values: ['app/prod/API'] }] })).toEqual(['app/prod/API_KEY']);
  });

  it('description and tags match nothing yet (secrets carry none), and their negation everything', async () => {
    const { names } = harness();
    expect(await names({ Filters: [{ Key: 'description', Values: ['x'] }] })).toEqual([]);
    expect(await names({ Filters: [{ Key: 'tag-key', Values: ['!env'] }] })).toHaveLength(3);
  });

  it('passes MaxResults and NextToken to the search as its page, and says what it does not support yet', async () => {
    const { op, search, names } = harness();
    await names({ MaxResults: 7, NextToken: 'c1' });
    expect(search.mock.calls[0]![2]).toEqual({ limit: 7, cursor: 'c1' });
    await expect(op.handle({} as never, { IncludePlannedDeletion: true } as never, {} as never)).rejects.toMatchObject({
      type: 'InvalidRequestException',
    });
  });
});
