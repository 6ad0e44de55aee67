import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  ListSecretsCommand,
  RestoreSecretCommand,
  RotateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../shared/platform/clock.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { makeDeletedSecretService } from '../../../shared/secrets/deleted-secret-service.ts';
import { secretPath } from '../../../shared/secrets/index.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { apiKeyPrincipal, newEnvironment } from '../../support/secrets.ts';
import { awsKey, client, listPages } from './support.ts';

/**
 * ListSecrets' `SortOrder` and `IncludePlannedDeletion` through the AWS SDK for JavaScript (decisions.md, "The AWS
 * Secrets Manager API"): AWS sorts by creation date; a secret in its recovery window is listed only with the flag,
 * with `DeletedDate`, under the same rules and filters as the live ones. Each describe has a workspace of its own, so
 * a whole listing is known.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

/** Secrets written by REST one after the other (so in creation order); answers their ids by key. */
async function putSecrets(ws: Ws, envId: string, keyNames: readonly string[]) {
  const ids: Record<string, string> = {};
  for (const key of keyNames) {
    const answer = await call('PUT', `/api/v1/environments/${envId}/secrets`, {
      token: ws.apiKey,
      body: { key, value: `value of ${key}` },
    });
    expect(answer.status).toBe(200);
    ids[key] = answer.body.data.id;
  }
  return ids;
}

const PAGE_SIZES = [1, 2] as const;

describe('ListSecrets SortOrder: by creation date, asc the reverse of desc, page by page', () => {
  let ws: Ws;
  let key: Awaited<ReturnType<typeof awsKey>>;
  /** Every secret of the workspace, oldest first; then those of project `order` alone. */
  const all = ['order/dev/K1', 'order/dev/K2', 'hidden/dev/H1', 'order/dev/K3', 'order/dev/K4', 'order/dev/K5'];
  const order = all.filter((name) => name.startsWith('order/'));

  beforeAll(async () => {
    ws = await newWorkspace();
    const orderEnv = (await newEnvironment(ws.apiKey, { project: 'order', environment: 'dev' })).environment.id;
    const hiddenEnv = (await newEnvironment(ws.apiKey, { project: 'hidden', environment: 'dev' })).environment.id;
    await putSecrets(ws, orderEnv, ['K1', 'K2']);
    await putSecrets(ws, hiddenEnv, ['H1']);
    await putSecrets(ws, orderEnv, ['K3', 'K4', 'K5']);
    key = await awsKey(ws);
  });

  it('desc (the default) newest first, asc oldest first, over pages of 1 and 2: every secret once, none missing', async () => {
    const sm = client(key);
    for (const MaxResults of PAGE_SIZES) {
      const byDefault = await listPages(sm, { MaxResults });
      const desc = await listPages(sm, { MaxResults, SortOrder: 'desc' });
      const asc = await listPages(sm, { MaxResults, SortOrder: 'asc' });
      expect(byDefault.names).toEqual([...all].reverse());
      expect(desc.pages).toEqual(byDefault.pages);
      expect(asc.names).toEqual(all);
      // Exact pages: full ones, and no empty page after the last.
      expect(asc.pages.map((page) => page.length)).toEqual(pageLengths(all.length, MaxResults));
      expect(desc.pages.map((page) => page.length)).toEqual(pageLengths(all.length, MaxResults));
    }
    const created = (await listPages(sm, { SortOrder: 'asc' })).entries.map((entry) => entry.CreatedDate!.getTime());
    expect(created).toEqual([...created].sort((a, b) => a - b));
  });

  it('a key scoped to one project (read through its environments) and a name filter page alike in both orders', async () => {
    const scoped = client(await awsKey(ws, { permissions: [{ projects: ['order'], actions: ['read'] }] }));
    const filters = [{ Key: 'name' as const, Values: ['order/'] }];
    for (const MaxResults of PAGE_SIZES) {
      expect((await listPages(scoped, { MaxResults, SortOrder: 'asc' })).names).toEqual(order);
      expect((await listPages(scoped, { MaxResults })).names).toEqual([...order].reverse());
      expect((await listPages(client(key), { MaxResults, SortOrder: 'asc', Filters: filters })).names).toEqual(order);
      expect((await listPages(client(key), { MaxResults, SortOrder: 'desc', Filters: filters })).names).toEqual([...order].reverse());
    }
  });

  it('refuses a NextToken of the other order with InvalidNextTokenException', async () => {
    const sm = client(key);
    const desc = await sm.send(new ListSecretsCommand({ MaxResults: 1 }));
    const asc = await sm.send(new ListSecretsCommand({ MaxResults: 1, SortOrder: 'asc' }));
    const wrong = [
      { MaxResults: 1, SortOrder: 'asc' as const, NextToken: desc.NextToken },
      { MaxResults: 1, NextToken: asc.NextToken },
      { MaxResults: 1, IncludePlannedDeletion: true, NextToken: desc.NextToken },
    ];
    for (const input of wrong)
      await expect(sm.send(new ListSecretsCommand(input))).rejects.toMatchObject({ name: 'InvalidNextTokenException' });
  });
});

/** The lengths of the pages of `count` items `size` at a time. */
const pageLengths = (count: number, size: number) =>
  Array.from({ length: Math.ceil(count / size) }, (_, i) => Math.min(size, count - i * size));

describe('ListSecrets IncludePlannedDeletion: secrets in their recovery window', () => {
  let ws: Ws;
  let key: Awaited<ReturnType<typeof awsKey>>;
  /** Oldest first: live A1 and A3, in their window A2 (7 days) and TAGGED (30), A4 deleted without a window. */
  const withDeleted = ['keep/prod/A1', 'keep/prod/A2', 'keep/prod/TAGGED', 'keep/prod/A3'];
  const live = ['keep/prod/A1', 'keep/prod/A3'];

  beforeAll(async () => {
    ws = await newWorkspace();
    const envId = (await newEnvironment(ws.apiKey, { project: 'keep', environment: 'prod' })).environment.id;
    key = await awsKey(ws);
    const sm = client(key);
    await putSecrets(ws, envId, ['A1', 'A2']);
    const tags = [{ Key: 'team', Value: 'payments' }];
    await sm.send(
      new CreateSecretCommand({ Name: 'keep/prod/TAGGED', SecretString: 'value of TAGGED', Description: 'billing db', Tags: tags }),
    );
    await putSecrets(ws, envId, ['A3', 'A4']);
    await sm.send(new DeleteSecretCommand({ SecretId: 'keep/prod/A2', RecoveryWindowInDays: 7 }));
    await sm.send(new DeleteSecretCommand({ SecretId: 'keep/prod/TAGGED' }));
    await sm.send(new DeleteSecretCommand({ SecretId: 'keep/prod/A4', ForceDeleteWithoutRecovery: true }));
  });

  it('lists them only with the flag, in creation order among the live ones, over pages of 1 and 2 in both orders', async () => {
    const sm = client(key);
    expect((await listPages(sm, { SortOrder: 'asc' })).names).toEqual(live);
    expect((await listPages(sm, { SortOrder: 'asc', IncludePlannedDeletion: false })).names).toEqual(live);
    for (const MaxResults of PAGE_SIZES) {
      const asc = await listPages(sm, { MaxResults, SortOrder: 'asc', IncludePlannedDeletion: true });
      const desc = await listPages(sm, { MaxResults, IncludePlannedDeletion: true });
      expect(asc.names).toEqual(withDeleted);
      expect(desc.names).toEqual([...withDeleted].reverse());
      expect(asc.pages.map((page) => page.length)).toEqual(pageLengths(withDeleted.length, MaxResults));
      expect(desc.pages.map((page) => page.length)).toEqual(pageLengths(withDeleted.length, MaxResults));
    }
  });

  it('shows DeletedDate on the deleted ones as DescribeSecret does, their description and tags, and never a value', async () => {
    const sm = client(key);
    const { entries } = await listPages(sm, { SortOrder: 'asc', IncludePlannedDeletion: true });
    for (const entry of entries) {
      const described = await sm.send(new DescribeSecretCommand({ SecretId: entry.Name! }));
      expect({ name: entry.Name, deleted: entry.DeletedDate }).toEqual({ name: entry.Name, deleted: described.DeletedDate });
      expect(entry.ARN).toBe(described.ARN);
    }
    expect(entries.filter((entry) => entry.DeletedDate instanceof Date).map((entry) => entry.Name)).toEqual([
      'keep/prod/A2',
      'keep/prod/TAGGED',
    ]);
    expect(entries.find((entry) => entry.Name === 'keep/prod/TAGGED')).toMatchObject({
      Description: 'billing db',
      Tags: [{ Key: 'team', Value: 'payments' }],
    });
    expect(JSON.stringify(entries)).not.toContain('value of');
  });

  it('applies filters to the deleted ones too: name, negation, tags and description', async () => {
    const sm = client(key);
    const names = async (Filters: { Key: 'name' | 'tag-key' | 'description'; Values: string[] }[], IncludePlannedDeletion = true) =>
      (await listPages(sm, { Filters, IncludePlannedDeletion, SortOrder: 'asc', MaxResults: 1 })).names;
    expect(await names([{ Key: 'name', Values: ['keep/prod/A2'] }])).toEqual(['keep/prod/A2']);
    expect(await names([{ Key: 'name', Values: ['keep/prod/A2'] }], false)).toEqual([]);
    expect(await names([{ Key: 'name', Values: ['!keep/prod/A'] }])).toEqual(['keep/prod/TAGGED']);
    expect(await names([{ Key: 'tag-key', Values: ['team'] }])).toEqual(['keep/prod/TAGGED']);
    expect(await names([{ Key: 'description', Values: ['billing'] }])).toEqual(['keep/prod/TAGGED']);
    expect(await names([{ Key: 'name', Values: ['keep/prod/A'] }])).toEqual(['keep/prod/A1', 'keep/prod/A2', 'keep/prod/A3']);
  });

  it('shows a key only the deleted secrets it may read', async () => {
    const allButA2 = await awsKey(ws, {
      permissions: [
        { projects: ['keep'], actions: ['read'] },
        { effect: 'deny', projects: ['keep'], keys: ['A2'], actions: ['read'] },
      ],
    });
    const onlyA2 = await awsKey(ws, { permissions: [{ projects: ['keep'], keys: ['A2'], actions: ['read'] }] });
    for (const MaxResults of PAGE_SIZES) {
      const input = { MaxResults, SortOrder: 'asc' as const, IncludePlannedDeletion: true };
      expect((await listPages(client(allButA2), input)).names).toEqual(withDeleted.filter((name) => name !== 'keep/prod/A2'));
      expect((await listPages(client(onlyA2), input)).pages).toEqual([['keep/prod/A2']]);
    }
  });

  it('leaves a deleted secret out once past its purgeAt, before the purger has purged it', async () => {
    const { store } = localStore();
    const principal = apiKeyPrincipal(ws);
    const listed = async (now: () => number) =>
      (await makeDeletedSecretService({ store, clock: { now } }).listWithLive(principal, { limit: 10 }, { newestFirst: false })).items.map(
        (secret) => secretPath(secret),
      );
    expect(await listed(systemClock.now)).toEqual(withDeleted);
    // Eight days on, A2's window of 7 has ended; TAGGED's of 30 has not.
    expect(await listed(() => Date.now() + 8 * 86_400_000)).toEqual(withDeleted.filter((name) => name !== 'keep/prod/A2'));
  });

  it('lists a restored secret once, live again', async () => {
    const sm = client(key);
    await sm.send(new RestoreSecretCommand({ SecretId: 'keep/prod/TAGGED' }));
    const { names, entries } = await listPages(sm, { SortOrder: 'asc', IncludePlannedDeletion: true, MaxResults: 1 });
    expect(names).toEqual(withDeleted);
    expect(entries.find((entry) => entry.Name === 'keep/prod/TAGGED')?.DeletedDate).toBeUndefined();
    expect((await listPages(sm, { SortOrder: 'asc' })).names).toEqual(['keep/prod/A1', 'keep/prod/TAGGED', 'keep/prod/A3']);
  });
});

describe('ListSecrets IncludePlannedDeletion: secrets deleted before their records were indexed', () => {
  it('indexes them on the first listing with the flag of their workspace, and marks it', async () => {
    // Prepare: a secret deleted as a delete did before, its record without the GSI1 keys
    const ws = await newWorkspace();
    const envId = (await newEnvironment(ws.apiKey, { project: 'old', environment: 'prod' })).environment.id;
    const ids = await putSecrets(ws, envId, ['GONE', 'STAYS']);
    expect((await call('DELETE', `/api/v1/secrets/${ids.GONE}`, { token: ws.apiKey })).status).toBe(200);
    const { doc, tableName } = localStore();
    const record = keys.secretPurge(ws.workspaceId, ids.GONE!);
    await doc.send(new UpdateCommand({ TableName: tableName, Key: record, UpdateExpression: 'REMOVE GSI1PK, GSI1SK' }));
    // Act
    const listed = await listPages(client(await awsKey(ws)), { IncludePlannedDeletion: true, SortOrder: 'asc' });
    // Assess
    expect(listed.names).toEqual(['old/prod/GONE', 'old/prod/STAYS']);
    expect(listed.entries[0]!.DeletedDate).toBeInstanceOf(Date);
    const workspace = await doc.send(new GetCommand({ TableName: tableName, Key: keys.workspace(ws.workspaceId) }));
    expect(workspace.Item?.deletedSecretsIndexed).toBe(true);
  });
});

describe('ListSecrets entries: rotation fields and filters as AWS matches them (decisions.md v1.4)', () => {
  let sm: ReturnType<typeof client>;
  beforeAll(async () => {
    const ws = await newWorkspace();
    await newEnvironment(ws.apiKey, { project: 'lst', environment: 'prod' });
    sm = client(await awsKey(ws));
    await sm.send(new CreateSecretCommand({ Name: 'lst/prod/ROTATED', SecretString: 'r', Description: 'Legacy replica of orders' }));
    await sm.send(
      new CreateSecretCommand({ Name: 'lst/prod/PLAIN', SecretString: 'p', Tags: [{ Key: 'costCenter', Value: 'FinanceOps' }] }),
    );
    await sm.send(
      new RotateSecretCommand({ SecretId: 'lst/prod/ROTATED', RotationRules: { AutomaticallyAfterDays: 30 }, RotateImmediately: false }),
    );
  });

  it('carries RotationEnabled and the rotation fields exactly as DescribeSecret does', async () => {
    const { entries } = await listPages(sm);
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'lst/prod/ROTATED' }));
    const rotated = entries.find((entry) => entry.Name === 'lst/prod/ROTATED')!;
    expect(rotated.RotationEnabled).toBe(true);
    for (const field of ['RotationEnabled', 'RotationLambdaARN', 'RotationRules', 'LastRotatedDate', 'NextRotationDate'] as const)
      expect({ field, value: rotated[field] }).toEqual({ field, value: described[field] });
    expect(entries.find((entry) => entry.Name === 'lst/prod/PLAIN')).toMatchObject({ RotationEnabled: false });
  });

  it('description is a prefix whatever the case; all matches words (rep finds "Legacy replica", finance finds FinanceOps)', async () => {
    const names = async (Key: 'description' | 'all', value: string) => (await listPages(sm, { Filters: [{ Key, Values: [value] }] })).names;
    expect(await names('description', 'legacy REP')).toEqual(['lst/prod/ROTATED']);
    expect(await names('description', 'replica')).toEqual([]);
    expect(await names('all', 'rep')).toEqual(['lst/prod/ROTATED']);
    expect(await names('all', 'finance')).toEqual(['lst/prod/PLAIN']);
    expect(await names('all', 'center')).toEqual(['lst/prod/PLAIN']);
    expect(await names('all', 'lst')).toHaveLength(2);
  });
});
