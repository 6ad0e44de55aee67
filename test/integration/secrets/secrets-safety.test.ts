import { describe, expect, it } from 'vitest';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Principal } from '../../../shared/platform/principal.ts';
import { hashToken, issueToken } from '../../../shared/access/tokens.ts';
import { ENTITY, keys } from '../../../shared/platform/store/keys.ts';
import { makePurgeService } from '../../../shared/secrets/index.ts';
import { makePurgeStore } from '../../../shared/secrets/purge-store.ts';
import { call, localStore, newWorkspace, stackMacs, type ApiAnswer } from '../../support/api.ts';
import { apiKeyPrincipal, newEnvironment, scanTable, secretServiceWith, textsOf } from '../../support/secrets.ts';

const principalOf = async (ws: Awaited<ReturnType<typeof newWorkspace>>): Promise<Principal> => {
  const workspace = await localStore().store.getWorkspace(ws.workspaceId);
  return apiKeyPrincipal(ws, workspace!.accountId);
};

describe('encryption at rest', () => {
  it('stores no value in plaintext anywhere in the table, in any encoding', async () => {
    const ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey);
    const values = ['plain-canary-3f9a1c7e', 'ünïcödé-canary-✓-42', `long-canary-${'z'.repeat(5000)}`];
    for (const [i, value] of values.entries()) {
      await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: `CANARY_${i}`, value } });
      await call('PUT', `/api/v1/environments/${environment.id}/secrets`, {
        token: ws.apiKey,
        body: { key: `CANARY_${i}`, value: `${value}-v2` },
      });
    }
    const texts = (await scanTable()).flatMap(textsOf);
    expect(texts.length).toBeGreaterThan(100);
    for (const value of values) {
      const needles = [
        value.slice(0, 20),
        Buffer.from(value).toString('base64').slice(0, 20),
        Buffer.from(value).toString('hex').slice(0, 20),
      ];
      for (const needle of needles) expect(texts.filter((text) => text.includes(needle))).toEqual([]);
    }
  });

  it('refuses to decrypt a ciphertext moved to another secret, and answers no value', async () => {
    const ws = await newWorkspace();
    const { project, environment } = await newEnvironment(ws.apiKey);
    const put = (key: string, value: string) =>
      call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key, value } });
    const a = (await put('A', 'value-of-a')).body.data;
    const b = (await put('B', 'value-of-b')).body.data;
    const { doc, tableName } = localStore();
    const head = await localStore().store.getSecretHead(ws.workspaceId, a.id);
    const stolen = (
      await doc.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND SK = :sk',
          ExpressionAttributeValues: { ':pk': `WS#${ws.workspaceId}`, ':sk': `SEC#${a.id}` },
        }),
      )
    ).Items![0]!.sealed;
    expect(head?.currentVersion).toBe(1);
    for (const key of [keys.secretHead(ws.workspaceId, b.id), keys.secretPath(ws.workspaceId, `${project.slug}/${environment.slug}/B`)]) {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET sealed = :s',
          ExpressionAttributeValues: { ':s': stolen },
        }),
      );
    }
    for (const answer of [
      await call('POST', `/api/v1/secrets/${b.id}/reveal`, { token: ws.apiKey }),
      await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: `${project.slug}/${environment.slug}/B` } }),
    ]) {
      expect(answer.status).toBe(500);
      expect(answer.body).toMatchObject({ data: null, error: { code: 'INTERNAL_ERROR' } });
      expect(JSON.stringify(answer.body)).not.toContain('value-of-a');
    }
    expect((await call('POST', `/api/v1/secrets/${a.id}/reveal`, { token: ws.apiKey })).body.data.value).toBe('value-of-a');
  });
});

describe('failure injection', () => {
  it('returns no value and writes nothing when the reveal audit write fails', async () => {
    const ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey);
    const id = (
      await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: 'K', value: 'guarded' } })
    ).body.data.id;
    const service = secretServiceWith({ recordReveal: async () => Promise.reject(new Error('audit table unavailable')) });
    const principal = await principalOf(ws);
    await expect(service.revealById(principal, id, undefined)).rejects.toThrow('audit table unavailable');
    await expect(service.revealByPath(principal, 'secrets/production/K', undefined)).rejects.toThrow('audit table unavailable');
    const reveals = await localStore().store.listAudit(ws.workspaceId, { limit: 50 }, { action: 'secret.reveal' });
    expect(reveals.items).toEqual([]);
    await expect(secretServiceWith().revealById(principal, id, undefined)).resolves.toMatchObject({ value: 'guarded' });
  });

  it('leaves no secret that lists but cannot be revealed when a delete crashes between its two steps', async () => {
    const ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey);
    const put = (value: string) =>
      call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: 'DOOMED', value } });
    const id = (await put('v1')).body.data.id;
    await put('v2');
    await put('v3');
    const crashing = secretServiceWith({ purgeSecretVersions: async () => Promise.reject(new Error('crash after the first step')) });
    // A purge at once (no recovery window) that crashes after its first step.
    await expect(crashing.delete(await principalOf(ws), id, 0)).resolves.toEqual({ id, deleted: true, purgeAt: expect.any(String) });
    expect((await call('GET', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey })).body.data).toEqual([]);
    expect((await call('GET', '/api/v1/search/secrets?q=doomed', { token: ws.apiKey })).body.data).toEqual([]);
    for (const version of ['', '?version=1', '?version=3']) {
      expect((await call('POST', `/api/v1/secrets/${id}/reveal${version}`, { token: ws.apiKey })).status).toBe(404);
    }
    const { doc, tableName } = localStore();
    const partition = {
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': `WS#${ws.workspaceId}#SEC#${id}` },
    };
    const head = { TableName: tableName, Key: keys.secretHead(ws.workspaceId, id), ConsistentRead: true };
    expect((await doc.send(new QueryCommand(partition))).Items?.map((i) => i.type)).toEqual(Array(3).fill('SecretVersion'));
    expect((await doc.send(new GetCommand(head))).Item?.type).toBe('SecretPurge');
    // The purger finishes the interrupted purge once its grace period has passed.
    const purger = makePurgeService({ store: makePurgeStore({ doc, tableName }), clock: { now: () => Date.now() + 10 * 60_000 } });
    expect((await purger.purgeDue()).purged).toBeGreaterThanOrEqual(1);
    expect((await doc.send(new QueryCommand(partition))).Items).toEqual([]);
    expect((await doc.send(new GetCommand(head))).Item).toBeUndefined();
    expect((await put('reborn')).body.data).toMatchObject({ version: 1 });
  });

  it('deletes a secret with 1,000 versions completely', async () => {
    const ws = await newWorkspace();
    const { project, environment } = await newEnvironment(ws.apiKey);
    const service = secretServiceWith();
    const principal = await principalOf(ws);
    // Versions 2 to 999 are copies of version 1's item put in batches (never revealed: only 1, 1000 and a purged 500
    // are), and the key's three current-state items moved to 999, so version 1000 is a real write on top: a thousand
    // writes one at a time took 50-80 s of this test on two cores.
    const { doc, tableName } = localStore();
    const id = (await service.write(principal, environment.id, { key: 'MANY', value: 'v1' })).id;
    const first = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.secretVersion(ws.workspaceId, id, 1) }))).Item!;
    const copies = Array.from({ length: 998 }, (_, i) => ({
      PutRequest: { Item: { ...first, ...keys.secretVersion(ws.workspaceId, id, i + 2), version: i + 2 } },
    }));
    for (let i = 0; i < copies.length; i += 25)
      await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: copies.slice(i, i + 25) } }));
    for (const key of [
      keys.secretHead(ws.workspaceId, id),
      keys.secretPath(ws.workspaceId, `${project.slug}/${environment.slug}/MANY`),
      keys.environmentSecret(ws.workspaceId, environment.id, 'MANY'),
    ])
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET currentVersion = :v',
          ConditionExpression: 'currentVersion = :one',
          ExpressionAttributeValues: { ':v': 999, ':one': 1 },
        }),
      );
    await service.write(principal, environment.id, { key: 'MANY', value: 'v1000' });
    expect((await call('POST', `/api/v1/secrets/${id}/reveal?version=1000`, { token: ws.apiKey })).body.data.value).toBe('v1000');
    expect((await call('POST', `/api/v1/secrets/${id}/reveal?version=1`, { token: ws.apiKey })).body.data.value).toBe('v1');
    expect((await call('DELETE', `/api/v1/secrets/${id}?recoveryWindowDays=0`, { token: ws.apiKey })).body.data).toEqual({
      id,
      deleted: true,
    });
    const left = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `WS#${ws.workspaceId}#SEC#${id}` },
      }),
    );
    expect(left.Items).toEqual([]);
    expect((await call('POST', `/api/v1/secrets/${id}/reveal?version=500`, { token: ws.apiKey })).status).toBe(404);
  }, 120_000);
});

describe('reveal rate limit', () => {
  it('answers RATE_LIMITED with Retry-After past the per-minute limit, across both reveal routes, per credential', async () => {
    const ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey, { project: 'rl', environment: 'prod' });
    const id = (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: 'K', value: 'v' } }))
      .body.data.id;
    const statuses: number[] = [];
    let limited: ApiAnswer | undefined;
    // The local stack runs with the default 120 per minute; a minute boundary may reset the window once.
    for (let i = 0; i < 250 && !limited; i++) {
      const answer =
        i % 2
          ? await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey })
          : await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: 'rl/prod/K' } });
      statuses.push(answer.status);
      if (answer.status === 429) limited = answer;
    }
    expect(limited?.body.error).toEqual({ code: 'RATE_LIMITED', message: 'reveals: at most 120 per minute per credential' });
    const retryAfter = Number(limited?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(120);
    const other = await ws.admin.createApiKey(ws.workspaceId, 'other');
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token: other.apiKey })).status).toBe(200);
    // Exactly one audit entry per answered reveal, none for the refused ones.
    let audited = 0;
    let cursor: string | undefined;
    do {
      const page = await localStore().store.listAudit(
        ws.workspaceId,
        { limit: 200, cursor },
        { action: 'secret.reveal', actorSub: ws.apiKeyId },
      );
      audited += page.items.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(audited).toBe(statuses.filter((s) => s === 200).length);
  }, 60_000);
});

describe('machine tokens on secrets routes', () => {
  it('write and reveal with the machine identity as actor', async () => {
    const ws = await newWorkspace();
    const { environment } = await newEnvironment(ws.apiKey);
    const { doc, tableName } = localStore();
    const token = issueToken(await stackMacs(), 'machine', ws.workspaceId);
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.token(hashToken(token)),
          type: ENTITY.token,
          kind: 'machine',
          workspaceId: ws.workspaceId,
          credentialId: 'ak_01JCCCCCCCCCCCCCCCCCCCCCCC',
          actorSub: 'mid_01JCCCCCCCCCCCCCCCCCCCCCCC',
        },
      }),
    );
    const id = (await call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token, body: { key: 'CI', value: 'for-ci' } })).body
      .data.id;
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token })).body.data.value).toBe('for-ci');
    expect((await call('GET', '/api/v1/audit', { token })).body.error.code).toBe('FORBIDDEN');
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 10 }, { target: id });
    expect(audit.items.map((e) => [e.action, e.actorSub, e.metadata.credentialKind])).toEqual([
      ['secret.reveal', 'mid_01JCCCCCCCCCCCCCCCCCCCCCCC', 'machine'],
      ['secret.create', 'mid_01JCCCCCCCCCCCCCCCCCCCCCCC', 'machine'],
    ]);
  });
});

describe('table stream', () => {
  it('carries, for every secret create, rotate, reveal and delete, what the webhook fan-out needs and no value', async () => {
    const ws = await newWorkspace();
    const { project, environment } = await newEnvironment(ws.apiKey, { project: 'streamed', environment: 'prod' });
    const put = (value: string) =>
      call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key: 'S', value } });
    const id = (await put('stream-canary-1')).body.data.id;
    await put('stream-canary-2');
    await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey });
    await call('DELETE', `/api/v1/secrets/${id}`, { token: ws.apiKey });

    const { dynamodbEndpoint, tableName } = inject('stack');
    const config = { endpoint: dynamodbEndpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    const table = await new DynamoDBClient(config).send(new DescribeTableCommand({ TableName: tableName }));
    const streams = new DynamoDBStreamsClient(config);
    const stream = await streams.send(new DescribeStreamCommand({ StreamArn: table.Table!.LatestStreamArn }));
    const images: Record<string, unknown>[] = [];
    const texts: string[] = [];
    for (const shard of stream.StreamDescription!.Shards!) {
      let iterator = (
        await streams.send(
          new GetShardIteratorCommand({
            StreamArn: table.Table!.LatestStreamArn,
            ShardId: shard.ShardId,
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        )
      ).ShardIterator;
      // The whole stream of a busy test run (other files write thousands of items): read on until this test's four
      // entries are found, then one page more; an empty page ends the shard only once nothing is left to find (a
      // stream can answer empty pages before later records).
      let empty = 0;
      for (let page = 0; iterator && page < 2000; page++) {
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        for (const record of out.Records ?? []) {
          const image = record.dynamodb?.NewImage ?? record.dynamodb?.OldImage;
          if (!image) continue;
          const item = unmarshall(image as never);
          texts.push(...textsOf(item));
          if (record.eventName === 'INSERT' && item.type === 'AuditEntry' && item.target === id) images.push(item);
        }
        empty = out.Records?.length ? 0 : empty + 1;
        if ((images.length >= 4 && !out.Records?.length) || empty >= 5) break;
        iterator = out.NextShardIterator;
      }
    }
    expect(images.map((i) => i.action).sort()).toEqual(['secret.create', 'secret.delete', 'secret.reveal', 'secret.rotate']);
    for (const image of images) {
      expect(image).toMatchObject({
        workspaceId: ws.workspaceId,
        actorSub: ws.apiKeyId,
        target: id,
        metadata: { key: 'S', projectId: project.id, environmentId: environment.id },
      });
    }
    expect(images.find((i) => i.action === 'secret.rotate')!.metadata).toMatchObject({ version: 2 });
    expect(texts.filter((t) => t.includes('stream-canary'))).toEqual([]);
  }, 60_000);
});
