import { CreateSecretCommand, DescribeSecretCommand } from '@aws-sdk/client-secrets-manager';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENTITY, keys } from '../../../shared/platform/store/keys.ts';
import { makePurgeStore } from '../../../shared/secrets/purge-store.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from '../aws/support.ts';

/**
 * Secrets deleted before v1.4 (decisions.md, "Recoverable deletes"): their deleted record is in the secret's own
 * partition (`#PURGE`) and their path's under `DPATH#`, with nothing at the head's or the path's key. A table
 * upgraded in place holds such deletions for up to 30 days: they list, describe, hold their name against the AWS
 * API's CreateSecret, restore and purge as the deletions made since do.
 */

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let env: Awaited<ReturnType<typeof newEnvironment>>;
let made = 0;

const secretsPath = () => `/api/v1/environments/${env.environment.id}/secrets`;

/** A secret deleted now, its items then moved to where a release before v1.4 put them. */
async function deletedAsBefore(): Promise<{ id: string; key: string; path: string }> {
  const key = `OLD_${++made}`;
  await call('PUT', secretsPath(), { token: ws.apiKey, body: { key, value: 'first' } });
  const { id } = (await call('PUT', secretsPath(), { token: ws.apiKey, body: { key, value: 'second' } })).body.data;
  expect((await call('DELETE', `/api/v1/secrets/${id}`, { token: ws.apiKey })).status).toBe(200);
  const { doc, tableName } = localStore();
  const path = `legacy/prod/${key}`;
  const read = async (itemKey: { PK: string; SK: string }) =>
    (await doc.send(new GetCommand({ TableName: tableName, Key: itemKey, ConsistentRead: true }))).Item!;
  const record = await read(keys.secretHead(ws.workspaceId, id));
  const marker = await read(keys.secretPath(ws.workspaceId, path));
  expect([record.type, marker.type]).toEqual([ENTITY.secretPurge, ENTITY.deletedSecretPath]);
  await doc.send(new PutCommand({ TableName: tableName, Item: { ...record, ...keys.secretPurge(ws.workspaceId, id) } }));
  await doc.send(new PutCommand({ TableName: tableName, Item: { ...marker, ...keys.deletedSecretPath(ws.workspaceId, path) } }));
  await doc.send(new DeleteCommand({ TableName: tableName, Key: keys.secretHead(ws.workspaceId, id) }));
  await doc.send(new DeleteCommand({ TableName: tableName, Key: keys.secretPath(ws.workspaceId, path) }));
  return { id, key, path };
}

beforeAll(async () => {
  ws = await newWorkspace();
  env = await newEnvironment(ws.apiKey, { project: 'legacy', environment: 'prod' });
});

describe('a secret deleted before v1.4', () => {
  it('lists, is described by name with its DeletedDate, holds its name against CreateSecret, and restores whole', async () => {
    // Prepare
    const secret = await deletedAsBefore();
    const sm = client(await awsKey(ws));
    // Act
    const listed = (await call('GET', `${secretsPath()}/deleted`, { token: ws.apiKey })).body.data as { id: string }[];
    const described = await sm.send(new DescribeSecretCommand({ SecretId: secret.path }));
    const create = await sm.send(new CreateSecretCommand({ Name: secret.path, SecretString: 'x' })).catch((error: Error) => error);
    const restored = await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: ws.apiKey });
    // Assess
    expect(listed.map((s) => s.id)).toContain(secret.id);
    expect(described.DeletedDate).toBeInstanceOf(Date);
    expect((create as Error).name).toBe('InvalidRequestException');
    expect(restored.body.data).toEqual({ id: secret.id, key: secret.key, version: 2 });
    expect((await call('POST', `/api/v1/secrets/${secret.id}/reveal`, { token: ws.apiKey })).body.data.value).toBe('second');
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: secret.path } })).body.data.value).toBe('second');
    const { doc, tableName } = localStore();
    const record = await doc.send(new GetCommand({ TableName: tableName, Key: keys.secretPurge(ws.workspaceId, secret.id) }));
    expect(record.Item).toBeUndefined();
  });

  it('is purged whole: its versions and its record in its partition', async () => {
    // Prepare
    const secret = await deletedAsBefore();
    const { doc, tableName } = localStore();
    // Act
    const purged = await makePurgeStore({ doc, tableName }).purgeSecretVersions(ws.workspaceId, secret.id);
    // Assess
    expect(purged).toBe(2);
    const partition = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.secretPurge(ws.workspaceId, secret.id).PK },
        ConsistentRead: true,
      }),
    );
    expect(partition.Items).toEqual([]);
    expect((await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: ws.apiKey })).status).toBe(404);
  });
});
