import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { iso } from '../../../shared/platform/clock.ts';
import { newId } from '../../../shared/platform/ids.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { tableStores } from '../../support/table-stores.ts';

/**
 * IAM cannot require a ConditionExpression (docs/operations.md, "What IAM enforces on the table"), so a role allowed
 * to put audit entries or create credentials could write over one: what stops it is the store, which sends every
 * such put with `attribute_not_exists(PK)`. This test runs every store method that writes audit or credential items
 * against a client that records what it is sent, and fails on any put of one without that condition, any batch
 * write of one (a batch cannot carry a condition), any update or delete of an audit entry, and any update of a
 * credential item that could create it (UpdateItem writes a missing item unless told `attribute_exists(PK)`).
 */

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const store = tableStores(doc, 'T');
type Store = typeof store;

const WS = newId('workspace');
const NOW = iso(Date.parse('2026-01-01T00:00:00Z'));
const SEALED = { ciphertext: 'AA==', iv: 'AA==', tag: 'AA==', encryptedDataKey: 'AA==' };
const audit = (): AuditEntry => ({
  id: newId('audit'),
  action: 'secret.reveal',
  actorSub: 'key_actor',
  target: 'sec_x',
  metadata: {},
  createdAt: NOW,
  accountId: 'acc_x',
});
const secret = {
  id: newId('secret'),
  key: 'K',
  projectId: 'proj_x',
  projectSlug: 'p',
  environmentId: newId('environment'),
  envSlug: 'e',
  currentVersion: 1,
  createdAt: NOW,
  updatedAt: NOW,
};
const endpoint = {
  id: newId('webhookEndpoint'),
  url: 'https://example.com/',
  events: ['service.secret.create'],
  description: null,
  enabled: true,
  secretHint: 'whsec_…abcd',
  createdAt: NOW,
  updatedAt: NOW,
  disabledAt: null,
  disabledReason: null,
  consecutiveFailures: 0,
  failingSince: null,
  accountId: 'acc_x',
  sealedSecret: SEALED,
};
const apiKey = {
  id: newId('apiKey'),
  name: 'k',
  tokenPrefix: 'sk_live_ab',
  tokenHash: 'a'.repeat(64),
  createdAt: NOW,
  revokedAt: null,
  lastUsedAt: null,
};
const accessKey = {
  id: newId('accessKey'),
  name: 'k',
  identityId: newId('machineIdentity'),
  tokenPrefix: 'st_abcdefg',
  createdAt: NOW,
  createdBy: 'key_x',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  permissions: [],
  allowedCidrs: [],
  auth: { type: 'token' as const },
  tokenTtlSeconds: null,
};

/** Every store method that writes an audit entry or a credential item, run once (twice where it has two shapes). */
const WRITERS: Partial<Record<keyof Store, () => Promise<unknown>>> = {
  setAllowlisted: () => store.setAllowlisted(WS, true, NOW, audit()),
  putApiKey: async () => {
    await store.putApiKey(WS, apiKey, audit());
    await store.putApiKey(WS, { ...apiKey, id: newId('apiKey') }, undefined);
  },
  revokeApiKey: () => store.revokeApiKey(WS, apiKey, NOW, audit()),
  touchCredential: async () => {
    await store.touchCredential({ kind: 'api_key', workspaceId: WS, credentialId: apiKey.id }, apiKey.tokenHash, NOW, NOW);
    await store.touchCredential({ kind: 'machine', workspaceId: WS, credentialId: accessKey.id }, 'b'.repeat(64), NOW, NOW);
  },
  createProject: () => store.createProject(WS, { id: newId('project'), name: 'P', slug: 'p', createdAt: NOW, createdBy: 'key_x' }, audit()),
  createEnvironment: () =>
    store.createEnvironment(
      WS,
      { id: newId('environment'), projectId: newId('project'), name: 'E', slug: 'e', createdAt: NOW },
      'p',
      audit(),
    ),
  writeSecretVersion: async () => {
    await store.writeSecretVersion(WS, { ...secret, sealed: SEALED }, undefined, { createdBy: 'key_x' }, audit());
    await store.writeSecretVersion(
      WS,
      { ...secret, currentVersion: 2, revision: 2, sealed: SEALED },
      secret,
      { createdBy: 'key_x', rolledBackFrom: 1 },
      audit(),
    );
    // An AWS write's ClientRequestToken claims its VersionId in the same transaction.
    await store.writeSecretVersion(
      WS,
      { ...secret, currentVersion: 3, revision: 3, sealed: SEALED },
      { ...secret, currentVersion: 2, revision: 2 },
      { createdBy: 'key_x', versionId: '00000000-1111-4111-8111-111111111111' },
      audit(),
    );
    // A version written without AWSCURRENT, and a rotation reserving its token without a version item.
    await store.writeSecretVersion(
      WS,
      { ...secret, currentVersion: 3, latestVersion: 4, labels: { AWSPENDING: 4 }, revision: 4, sealed: SEALED },
      { ...secret, currentVersion: 3, revision: 3 },
      { number: 4, createdBy: 'key_x' },
      audit(),
    );
    await store.writeSecretVersion(
      WS,
      { ...secret, currentVersion: 3, latestVersion: 5, labels: { AWSPENDING: 5 }, unfilled: [5], revision: 5, sealed: SEALED },
      { ...secret, currentVersion: 3, latestVersion: 4, revision: 4 },
      null,
      undefined,
      { versionId: '00000000-2222-4222-8222-222222222222', number: 5 },
    );
  },
  updateSecretMetadata: () =>
    store.updateSecretMetadata(
      WS,
      { ...secret, currentVersion: 3, changedAt: NOW, tags: { team: 'payments' } },
      { ...secret, currentVersion: 3, revision: 5 },
      { tags: { team: 'payments' } },
      audit(),
    ),
  recordReveal: () =>
    store.recordReveal(WS, audit(), { credentialId: apiKey.id, perMinute: 100, workspacePerMinute: 1000, now: Date.parse(NOW) }),
  deleteSecret: () => store.deleteSecret(WS, { ...secret, sealed: SEALED }, audit(), { deletedBy: 'key_x', purgeAt: NOW }),
  restoreSecret: () => {
    const deleted = { ...secret, sealed: SEALED, deletedAt: NOW, deletedBy: 'key_x', purgeAt: '2999-01-01T00:00:00.000Z' };
    return store.restoreSecret(WS, deleted, audit(), Date.parse(NOW));
  },
  writeAuditEntries: () => store.writeAuditEntries(WS, Array.from({ length: 30 }, audit)),
  createAccessKey: async () => {
    await store.createAccessKey(WS, accessKey, { tokenHash: 'c'.repeat(64) }, audit());
    // A key whose tokens come from logins: no token item, the same lookup of its workspace.
    await store.createAccessKey(
      WS,
      {
        ...accessKey,
        tokenPrefix: null,
        auth: { type: 'aws_iam', principalArns: ['arn:aws:iam::123456789012:role/x'] },
        tokenTtlSeconds: 900,
      },
      undefined,
      audit(),
    );
  },
  revokeAccessKey: async () => {
    await store.revokeAccessKey(WS, accessKey.id, 'c'.repeat(64), NOW, audit());
    // A key that logs in: its state on the workspace item too.
    await store.revokeAccessKey(WS, accessKey.id, undefined, NOW, audit(), { accessKeyId: accessKey.id, value: -1, prune: ['lk_ak_old'] });
  },
  updateAccessKey: () => store.updateAccessKey(WS, accessKey, 'c'.repeat(64), { name: 'renamed', allowedCidrs: ['10.0.0.0/8'] }, audit()),
  createEndpoint: () => store.createEndpoint(WS, endpoint, audit()),
  updateEndpoint: () => store.updateEndpoint(WS, endpoint, NOW, true, audit()),
  rotateEndpointSecret: async () => {
    await store.rotateEndpointSecret(
      WS,
      { ...endpoint, previousSealedSecret: SEALED, previousSecretExpiresAt: NOW },
      { updatedAt: NOW, secret: SEALED },
      audit(),
    );
    // No overlap: the previous secret's attributes are removed.
    await store.rotateEndpointSecret(WS, endpoint, { updatedAt: NOW, secret: SEALED }, audit());
  },
  deleteEndpoint: () => store.deleteEndpoint(WS, endpoint.id, audit()),
  autoDisableEndpoint: () => store.autoDisableEndpoint(WS, endpoint.id, NOW, 'failing', audit()),
  retryNow: () =>
    store.retryNow(WS, { id: newId('delivery'), endpointId: endpoint.id, createdAt: NOW, status: 'failed' }, 'token', NOW, audit()),
  issueLoginToken: () =>
    store.issueLoginToken({
      workspaceId: WS,
      record: accessKey,
      revision: 2,
      tokenHash: 'e'.repeat(64),
      token: {
        kind: 'machine',
        workspaceId: WS,
        credentialId: accessKey.id,
        actorSub: accessKey.identityId,
        expiresAt: NOW,
        revokedAt: null,
        lastUsedAt: null,
        allowedCidrs: [],
      },
      audit: audit(),
      createdAt: NOW,
      window: { minute: 29_000_000, source: '203.0.113.7' },
      maxLogins: 60,
    }),
  recordLoginRefusal: () => store.recordLoginRefusal(WS, accessKey.id, { minute: 29_000_000, source: '203.0.113.7' }, 10, audit()),
  startRecovery: () =>
    store.startRecovery(
      WS,
      {
        id: newId('audit'),
        endpointId: endpoint.id,
        fromId: newId('delivery'),
        toId: newId('delivery'),
        since: NOW,
        until: NOW,
        expected: 3,
        queued: 0,
        cursor: null,
        step: 0,
        status: 'running',
        createdAt: NOW,
        updatedAt: NOW,
      },
      audit(),
    ),
  createTestDelivery: () =>
    store.createTestDelivery(
      WS,
      {
        id: newId('delivery'),
        endpointId: endpoint.id,
        eventId: newId('event'),
        eventType: 'service.ping',
        status: 'pending',
        attempts: 0,
        statusCode: null,
        lastError: null,
        nextRetryAt: NOW,
        createdAt: NOW,
        updatedAt: NOW,
        attemptLog: [],
        body: '{}',
        attemptToken: 'tok',
        manual: false,
      },
      audit(),
    ),
  reachLoginTokens: () => {
    dynamodb.on(QueryCommand).resolves({ Items: [{ tokenHash: 'd'.repeat(64) }] });
    return store.reachLoginTokens(WS, accessKey.id, NOW, { revokedAt: NOW });
  },
  putRotation: () =>
    store.putRotation(
      WS,
      {
        secretId: secret.id,
        accountId: 'acc_x',
        enabled: true,
        functionArn: null,
        schedule: 'rate(7 days)',
        rules: { AutomaticallyAfterDays: 7 },
        duration: null,
        generator: null,
        configuredAt: NOW,
        nextRotationAt: null,
      },
      audit(),
    ),
  recordDenial: () =>
    store.recordDenial(
      WS,
      accessKey.id,
      `reveal#${secret.environmentId}#K`,
      () => ({ ...audit(), action: 'access.denied' }),
      Date.parse(NOW),
    ),
};

/** The store's other methods: reads, and writes of neither audit entries nor credential items. */
const OTHERS: readonly (keyof Store)[] = [
  'getCredentialContext',
  'getToken',
  'getWorkspace',
  'putWorkspace',
  'getApiKey',
  'listAllowlisted',
  'listProjects',
  'projectByIdKeys',
  'getProject',
  'getProjectBySlug',
  'projectSlugsStartingWith',
  'listEnvironments',
  'environmentByIdKeys',
  'getEnvironment',
  'getEnvironmentBySlug',
  'environmentSlugsStartingWith',
  'listAudit',
  'secretByIdKeys',
  'secretByPathKeys',
  'getRotation',
  'getRotations',
  'takeRotationLease',
  'advanceRotationLease',
  'endRotationLease',
  'secretWriteKeys',
  'getSecretHead',
  'getSecretByPath',
  'getEnvironmentSecret',
  'getSecretVersion',
  'purgeSecretVersions',
  'pendingPurges',
  'dependentsOf',
  'referencedBy',
  'pathOf',
  'listSecretVersions',
  'listSecrets',
  'searchSecrets',
  'listEnvironmentValues',
  'countRevealPage',
  'environmentsOfProjects',
  'searchEnvironments',
  'indexEnvironmentSearch',
  'accessKeyByIdKeys',
  'getAccessKey',
  'listAccessKeys',
  'getDeletedSecret',
  'getDeletedSecretByPath',
  'getVersionNumberOf',
  'getSecretVersionRecords',
  'getSecretsByPaths',
  'listDeletedSecrets',
  'listSecretsWithDeleted',
  'indexDeletedSecrets',
  'findLoginTarget',
  'workspaceOfAccessKey',
  'readLoginTarget',
  'readLoginAttempt',
  'expiredLoginKeyStates',
  'listEndpoints',
  'listEndpointPage',
  'endpointByIdKeys',
  'getEndpoint',
  'recordEndpointFailure',
  'recordEndpointSuccess',
  'createDelivery',
  'markDeliveryDue',
  'getDelivery',
  'claimAttempt',
  'recordAttempt',
  'failPending',
  'requeue',
  'listDeliveries',
  'pendingDeliveryIds',
  'dueDeliveries',
  'deleteEndpointDeliveries',
  'recordDeliveryStats',
  'statsWatermark',
  'statsHours',
  'statsBuckets',
  'countEndpointDeliveries',
  'rollupWatermark',
  'oldestDeliveryAt',
  'advanceWatermark',
  'deliveriesCreated',
  'writeRollup',
  'rolledBuckets',
  'countFailedDeliveries',
  'getRecovery',
  'failedPage',
  'requeueFailed',
  'uncountFailed',
  'advanceRecovery',
  'stalledRecoveries',
];

type Key = { PK?: string; SK?: string };
const isAudit = (key: Key) => /^WS#[^#]+#AUDIT$/.test(key.PK ?? '');
const isCredential = (key: Key) =>
  (key.PK ?? '').startsWith('TOKEN#') || (/^WS#[^#]+$/.test(key.PK ?? '') && /^(APIKEY|AK)#/.test(key.SK ?? ''));

/** One write as sent: what it does, to which item, under which condition. */
type Write = { kind: 'put' | 'update' | 'delete' | 'batch-put' | 'batch-delete'; key: Key; condition: string | undefined };

/** Every write the recorded commands made, transaction items and batch requests one by one. */
function writesSent(): Write[] {
  const writes: Write[] = [];
  for (const call of dynamodb.calls()) {
    const command = call.args[0] as unknown;
    const input = (command as { input: Record<string, any> }).input;
    if (command instanceof PutCommand) writes.push({ kind: 'put', key: input.Item, condition: input.ConditionExpression });
    if (command instanceof UpdateCommand) writes.push({ kind: 'update', key: input.Key, condition: input.ConditionExpression });
    if (command instanceof DeleteCommand) writes.push({ kind: 'delete', key: input.Key, condition: input.ConditionExpression });
    if (command instanceof TransactWriteCommand) {
      for (const item of input.TransactItems as Record<string, any>[]) {
        if (item.Put) writes.push({ kind: 'put', key: item.Put.Item, condition: item.Put.ConditionExpression });
        if (item.Update) writes.push({ kind: 'update', key: item.Update.Key, condition: item.Update.ConditionExpression });
        if (item.Delete) writes.push({ kind: 'delete', key: item.Delete.Key, condition: item.Delete.ConditionExpression });
      }
    }
    if (command instanceof BatchWriteCommand) {
      for (const request of Object.values(input.RequestItems as Record<string, Record<string, any>[]>).flat()) {
        if (request.PutRequest) writes.push({ kind: 'batch-put', key: request.PutRequest.Item, condition: undefined });
        if (request.DeleteRequest) writes.push({ kind: 'batch-delete', key: request.DeleteRequest.Key, condition: undefined });
      }
    }
  }
  return writes.map(({ kind, key, condition }) => ({ kind, key: { PK: key.PK, SK: key.SK }, condition }));
}

/** What is wrong with a write of an audit entry or a credential item, if anything. */
function refusal(write: Write): string | undefined {
  const guarded = isAudit(write.key) || isCredential(write.key);
  if (!guarded) return undefined;
  if (write.kind === 'batch-put' || write.kind === 'batch-delete') return 'batch-written (a batch cannot carry a condition)';
  if (write.kind === 'put' && write.condition !== 'attribute_not_exists(PK)') return `put with condition ${String(write.condition)}`;
  if (isAudit(write.key) && write.kind !== 'put') return `${write.kind} of an audit entry`;
  if (write.kind === 'update' && !write.condition?.startsWith('attribute_exists(PK) AND '))
    return `update that could create it (${String(write.condition)})`;
  if (write.kind === 'delete') return 'delete of a credential item';
  return undefined;
}

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('audit and credential items are only ever created, never written over', () => {
  it.each(Object.keys(WRITERS))(
    '%s puts them only with attribute_not_exists(PK), and never batches, updates or deletes an audit entry',
    async (name) => {
      // Act
      await WRITERS[name as keyof Store]!();
      // Assess: it did write such an item (the check is not vacuous), and every one of them passes
      const writes = writesSent();
      expect(writes.filter((write) => isAudit(write.key) || isCredential(write.key)).length).toBeGreaterThan(0);
      expect(writes.flatMap((write) => (refusal(write) ? [{ ...write, refusal: refusal(write) }] : []))).toEqual([]);
    },
  );

  it('writes a page of reveal entries as conditional PutItems (101 entries an item), never as a BatchWriteItem', async () => {
    await store.writeAuditEntries(WS, Array.from({ length: 30 }, audit));
    await store.writeAuditEntries(WS, Array.from({ length: 102 }, audit));
    expect(dynamodb.commandCalls(BatchWriteCommand)).toHaveLength(0);
    const puts = dynamodb.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(puts).toHaveLength(3);
    expect(puts.every((put) => put.ConditionExpression === 'attribute_not_exists(PK)')).toBe(true);
  });

  it('refuses, in this check, exactly what it should: a put without the condition, a batch put, an update of an entry', () => {
    const entry = { PK: `WS#${WS}#AUDIT`, SK: newId('audit') };
    const token = { PK: `TOKEN#${'d'.repeat(64)}`, SK: '#TOKEN' };
    expect(refusal({ kind: 'put', key: entry, condition: undefined })).toBeDefined();
    expect(refusal({ kind: 'put', key: token, condition: 'attribute_not_exists(PK) OR revokedAt = :x' })).toBeDefined();
    expect(refusal({ kind: 'batch-put', key: entry, condition: undefined })).toBeDefined();
    expect(refusal({ kind: 'update', key: entry, condition: 'attribute_exists(PK) AND (x)' })).toBeDefined();
    expect(
      refusal({ kind: 'update', key: { PK: `WS#${WS}`, SK: `AK#${newId('accessKey')}` }, condition: 'lastUsedAt < :since' }),
    ).toBeDefined();
    expect(refusal({ kind: 'put', key: { PK: `WS#${WS}`, SK: `PROJ#${newId('project')}` }, condition: undefined })).toBeUndefined();
  });

  it('knows every method of the store: a new one must be listed as a writer (and run above) or as neither', () => {
    expect(Object.keys(store).sort()).toEqual([...Object.keys(WRITERS), ...OTHERS].sort());
  });
});
