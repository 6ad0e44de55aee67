import { LOCAL_PLACE } from '../../shared/secrets/secret-names.ts';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../../shared/platform/clock.ts';
import { makeCipher } from '../../shared/platform/crypto/envelope.ts';
import { makeLocalKeyring } from '../../shared/platform/crypto/local-keyring.ts';
import { makeSecretService, type SecretServiceStore } from '../../shared/secrets/secret-service.ts';
import { API_KEY_AUTHORITY } from '../../shared/access/permissions.ts';
import type { Principal } from '../../shared/platform/principal.ts';
import { rotationViewOf } from '../../shared/rotation/index.ts';
import { call, localStore } from './api.ts';

/** A project and environment to hold a test's secrets. */
export async function newEnvironment(token: string, names = { project: 'Secrets', environment: 'Production' }) {
  const project = (await call('POST', '/api/v1/projects', { token, body: { name: names.project } })).body.data;
  const environment = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token, body: { name: names.environment } })).body
    .data;
  return { project, environment };
}

/**
 * The secret service in this test process, over the local stack's real table and keyring, with chosen store
 * methods replaced: how tests inject a failure at one exact step.
 */
export function secretServiceWith(overrides: Partial<SecretServiceStore> = {}, revealsPerMinute = 1000) {
  const { store } = localStore();
  const cipher = makeCipher({ keys: makeLocalKeyring({ keyFile: join(inject('localDir'), 'master.key') }) });
  return makeSecretService({
    store: { ...store, ...overrides },
    cipher,
    clock: systemClock,
    place: LOCAL_PLACE,
    revealsPerMinute,
    rotationOf: rotationViewOf(store),
  });
}

/** Every item of the table (test only: the service itself never scans). */
export async function scanTable(): Promise<Record<string, unknown>[]> {
  const { doc, tableName } = localStore();
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** Every string an item holds, binary attributes read both as UTF-8 and as Latin-1, nested maps and lists included. */
export function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value instanceof Uint8Array) return [Buffer.from(value).toString('utf8'), Buffer.from(value).toString('latin1')];
  if (Array.isArray(value) || value instanceof Set) return [...value].flatMap(textsOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(textsOf);
  return [];
}

/** The principal of a workspace's API key as the services see it, for tests that call a service directly. */
export function apiKeyPrincipal(ws: { workspaceId: string; apiKeyId: string }, accountId = 'acc_x'): Principal {
  return {
    workspaceId: ws.workspaceId,
    accountId,
    kind: 'api_key',
    actorSub: ws.apiKeyId,
    credentialId: ws.apiKeyId,
    authority: API_KEY_AUTHORITY,
  };
}
