import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccess } from '../../lib/table-access.ts';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { newId } from '../../shared/platform/ids.ts';
import { FAILED_DELIVERY_INDEX, gsi1, gsi2, gsi3, keys } from '../../shared/platform/store/keys.ts';
import { allows, reachOf, type TableArn, type TableRequest } from './table-policy.ts';
import {
  FUNCTION_NAMES,
  type FunctionName,
  functionsOf,
  GROUPS,
  idOf,
  makeOutdir,
  only,
  secretsKeyOf,
  type Statement,
  statementsOf,
  synth,
} from './synth.ts';

/**
 * What each role can reach on the table, judged from the synthesized template (test/infra/table-policy.ts evaluates
 * the statements as IAM does), with real keys built by the keys module: a partition a function's code writes but
 * its grant misses fails here, not in production (DynamoDB Local ignores IAM).
 */

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;
let tableArn: TableArn;
let statements: Record<FunctionName, Statement[]>;

beforeAll(async () => {
  outdir = await makeOutdir('infra-table-reach-');
  // Act
  ({ stack, template } = synth(outdir.dir));
  tableArn = { 'Fn::GetAtt': [only(template, 'AWS::DynamoDB::Table')[0], 'Arn'] };
  statements = Object.fromEntries(
    FUNCTION_NAMES.map((name) => [name, statementsOf(template, stack, functionsOf(stack)[name])]),
  ) as typeof statements;
});

afterAll(async () => {
  await outdir.cleanup();
});

const WS = newId('workspace');
const SECRET = newId('secret');
const ENDPOINT = newId('webhookEndpoint');
const DELIVERY = newId('delivery');
/** Real partition keys of every kind, from the keys module, with fresh ids. */
const PK = {
  token: keys.token('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855').PK,
  workspace: keys.workspace(WS).PK,
  accessKeyRecord: keys.accessKey(WS, newId('accessKey')).PK,
  audit: keys.audit(WS, newId('audit')).PK,
  version: keys.secretVersion(WS, SECRET, 12).PK,
  /** A secret's rotation item (its configuration and lease), and a VersionId's claim: beside the versions. */
  rotation: keys.secretRotation(WS, SECRET).PK,
  versionId: keys.secretVersionId(WS, SECRET, '0f9c1b2e-6c3d-4f5a-8b7e-1d2c3b4a5f60').PK,
  purge: keys.secretPurge(WS, SECRET).PK,
  delivery: keys.delivery(WS, DELIVERY).PK,
  apiKeyCounter: keys.revealCounter(WS, newId('apiKey'), 29_000_000).PK,
  personCounter: keys.revealCounter(WS, 'usr_~someone@example.com', 29_000_000).PK,
  workspaceCounter: keys.workspaceRevealCounter(WS, 29_000_000).PK,
  /** A sync's reveals count under its own id (shared/syncs/pipeline/sync-reveal.ts). */
  syncCounter: keys.revealCounter(WS, newId('sync'), 29_000_000).PK,
  idempotency: keys.idempotency(WS, 'usr_~someone@example.com', 'f'.repeat(64)).PK,
  cursorKey: keys.cursorSigningKey().PK,
  macKey: keys.macKey().PK,
  accessKeyById: keys.accessKeyById(newId('accessKey')).PK,
  loginTokens: keys.loginToken(WS, newId('accessKey'), '2026-01-01T00:15:00.000Z', 'f'.repeat(64)).PK,
  loginCounter: keys.loginCounter(WS, newId('accessKey'), 29_000_000).PK,
};
const GSI = {
  workspaceSecrets: gsi1.workspaceSecret(WS, SECRET).GSI1PK,
  deletedSecrets: gsi1.deletedSecret(WS, SECRET).GSI1PK,
  endpointLog: gsi3.endpointDelivery(ENDPOINT, DELIVERY).GSI3PK,
  dueShards: ['whd_A', 'whd_B', 'whd_C', 'whd_D', 'whd_E', 'whd_F', DELIVERY].map(
    (id) => gsi2.dueDelivery(id, '2026-01-01T00:00:00.000Z').GSI2PK,
  ),
  purges: gsi2.purge(WS, SECRET, '2026-01-01T00:00:00.000Z').GSI2PK,
  recoveries: gsi2.runningRecovery(WS, newId('audit'), '2026-01-01T00:00:00.000Z').GSI2PK,
  failedDeliveries: FAILED_DELIVERY_INDEX.keys(ENDPOINT, DELIVERY).GSI4PK,
  allWorkspaces: gsi2.workspace(WS).GSI2PK,
  changeRequests: gsi1.changeRequest(WS, 'env_01J0000000000000000000000', 'cr_01J0000000000000000000000').GSI1PK,
};

const API_FUNCTIONS = GROUPS.filter((group) => group !== 'openapi');
const AUDIT_WRITERS: FunctionName[] = [
  'projects',
  'environments',
  'secrets',
  'access-keys',
  'webhooks',
  'auth',
  'aws',
  'webhook-deliveries',
  'change-requests',
  'syncs',
  'audit-streams',
  'delivery-worker',
  'rotation',
  'sync-worker',
  'audit-digester',
  'audit-stream-worker',
];
/** The functions that create credential items: access keys (their tokens) and logins (theirs). */
const CREDENTIAL_CREATORS: FunctionName[] = ['access-keys', 'auth'];
const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];
/** The attributes of a lastUsedAt update, as its condition and its SET name them. */
const LAST_USED = ['PK', 'SK', 'lastUsedAt'];

const can = (name: FunctionName, request: TableRequest) => allows(statements[name], tableArn, request);
const request = (action: string, ...leadingKeys: string[]): TableRequest => ({ action, leadingKeys });
const query = (index: string, key: string): TableRequest => ({ action: 'Query', index, leadingKeys: [key] });
/** The role's statements plus an Allow of every table action on every item: what a grant added later could give. */
const withEverythingAllowed = (name: FunctionName): Statement[] => [
  ...statements[name],
  {
    Effect: 'Allow',
    Action: [...WRITES, 'GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem'].map((action) => `dynamodb:${action}`),
    Resource: tableArn,
  },
];

/** What each function's code sends, request by request (docs/single-table-design.md, read through the services). */
const NEEDS: Record<FunctionName, TableRequest[]> = (() => {
  const authentication = [
    request('BatchGetItem', PK.token, PK.workspace),
    request('GetItem', PK.token),
    request('GetItem', PK.macKey),
    request('GetItem', PK.cursorKey),
    request('PutItem', PK.cursorKey),
    { action: 'UpdateItem', leadingKeys: [PK.token], attributes: LAST_USED },
    { action: 'UpdateItem', leadingKeys: [PK.accessKeyRecord], attributes: LAST_USED },
  ];
  const idempotency = ['GetItem', 'PutItem', 'UpdateItem'].map((action) => request(action, PK.idempotency));
  const api = (own: TableRequest[], idempotent = true) => [...authentication, ...(idempotent ? idempotency : []), ...own];
  return {
    projects: api([
      request('Query', PK.workspace),
      request('GetItem', PK.workspace),
      request('PutItem', PK.workspace),
      request('PutItem', PK.audit),
    ]),
    environments: api([
      request('Query', PK.workspace),
      request('GetItem', PK.workspace),
      request('ConditionCheckItem', PK.workspace),
      request('PutItem', PK.workspace),
      request('PutItem', PK.audit),
    ]),
    secrets: api([
      request('BatchGetItem', PK.workspace, PK.workspace, PK.version),
      request('GetItem', PK.workspace),
      request('GetItem', PK.version),
      request('PutItem', PK.workspace),
      request('PutItem', PK.version),
      request('PutItem', PK.audit),
      request('UpdateItem', PK.apiKeyCounter),
      request('UpdateItem', PK.personCounter),
      request('UpdateItem', PK.workspaceCounter),
      request('DeleteItem', PK.workspace),
      request('DeleteItem', PK.purge),
      request('ConditionCheckItem', PK.workspace),
      request('BatchWriteItem', PK.version, PK.purge),
      request('Query', PK.workspace),
      request('Query', PK.version),
      query('GSI1', GSI.workspaceSecrets),
    ]),
    audit: api([request('Query', PK.audit)], false),
    // A change request: reads (request, environment, key items), its puts, a merge's secret writes, a reveal's counters.
    'change-requests': api([
      request('GetItem', PK.workspace),
      request('PutItem', PK.workspace),
      request('PutItem', PK.version),
      request('PutItem', PK.audit),
      request('UpdateItem', PK.apiKeyCounter),
      request('UpdateItem', PK.personCounter),
      request('UpdateItem', PK.workspaceCounter),
      request('DeleteItem', PK.workspace),
      query('GSI1', GSI.changeRequests),
    ]),
    'access-keys': api([
      request('GetItem', PK.workspace),
      request('Query', PK.workspace),
      request('PutItem', PK.accessKeyRecord),
      request('PutItem', PK.token),
      request('PutItem', PK.audit),
      request('UpdateItem', PK.accessKeyRecord),
      { action: 'UpdateItem', leadingKeys: [PK.token], attributes: ['PK', 'revokedAt'] },
      request('PutItem', PK.accessKeyById),
      request('Query', PK.loginTokens),
    ]),
    // A sync: read, listed, put under its counter, updated, deleted with its written keys' item.
    syncs: api([
      request('GetItem', PK.workspace),
      request('Query', PK.workspace),
      request('PutItem', PK.workspace),
      request('PutItem', PK.audit),
      request('UpdateItem', PK.workspace),
      request('DeleteItem', PK.workspace),
    ]),
    // An audit stream: read, listed, put under its counter, updated, deleted.
    'audit-streams': api([
      request('GetItem', PK.workspace),
      request('Query', PK.workspace),
      request('PutItem', PK.workspace),
      request('PutItem', PK.audit),
      request('UpdateItem', PK.workspace),
      request('DeleteItem', PK.workspace),
    ]),
    webhooks: api([
      request('GetItem', PK.workspace),
      request('Query', PK.workspace),
      request('Query', PK.delivery),
      request('PutItem', PK.workspace),
      request('PutItem', PK.audit),
      request('UpdateItem', PK.workspace),
      request('DeleteItem', PK.workspace),
      request('BatchGetItem', PK.delivery, PK.delivery),
      request('UpdateItem', PK.delivery),
      request('BatchWriteItem', PK.delivery),
      query('GSI1', GSI.endpointLog),
      query('GSI3', GSI.endpointLog),
    ]),
    'webhook-deliveries': api([
      request('GetItem', PK.workspace),
      request('GetItem', PK.delivery),
      request('BatchGetItem', PK.delivery),
      request('Query', PK.delivery),
      request('UpdateItem', PK.delivery),
      request('PutItem', PK.audit),
      request('PutItem', PK.delivery),
      query('GSI3', GSI.endpointLog),
      query('GSI4', GSI.failedDeliveries),
    ]),
    auth: [
      request('GetItem', PK.accessKeyById),
      request('GetItem', PK.macKey),
      request('BatchGetItem', PK.accessKeyRecord, PK.workspace, PK.loginCounter),
      request('UpdateItem', PK.loginCounter),
      request('ConditionCheckItem', PK.accessKeyRecord),
      request('PutItem', PK.token),
      request('PutItem', PK.loginTokens),
      request('PutItem', PK.audit),
    ],
    openapi: [],
    // The AWS API: a signing key's item by its key id's hash, then what the REST reveal by path and a read by path do.
    aws: [
      ...authentication.filter((need) => need.leadingKeys[0] !== PK.macKey),
      request('GetItem', PK.workspace),
      request('GetItem', PK.version),
      request('PutItem', PK.audit),
      request('UpdateItem', PK.apiKeyCounter),
      request('UpdateItem', PK.workspaceCounter),
      request('Query', PK.workspace),
      request('Query', PK.version),
      { action: 'UpdateItem', leadingKeys: [PK.workspace], attributes: ['PK', 'SK', 'searchIndexed'] },
      query('GSI1', GSI.workspaceSecrets),
      // ListSecrets with IncludePlannedDeletion: the deleted records on GSI1, and indexing those of before.
      query('GSI1', GSI.deletedSecrets),
      { action: 'UpdateItem', leadingKeys: [PK.purge], attributes: ['PK', 'SK', 'GSI1PK', 'GSI1SK'] },
      { action: 'UpdateItem', leadingKeys: [PK.workspace], attributes: ['PK', 'SK', 'deletedSecretsIndexed'] },
    ],
    'webhook-fanout': [
      request('Query', PK.workspace),
      // A value change's dependents (the reverse index of secret references): heads, project and environment.
      request('BatchGetItem', PK.workspace, PK.workspace),
      request('PutItem', PK.delivery),
      request('UpdateItem', PK.delivery),
    ],
    'delivery-worker': [
      request('GetItem', PK.delivery),
      request('GetItem', PK.workspace),
      request('Query', PK.workspace),
      request('Query', PK.delivery),
      request('UpdateItem', PK.delivery),
      request('UpdateItem', PK.workspace),
      request('PutItem', PK.audit),
      request('BatchGetItem', PK.delivery),
      query('GSI1', GSI.endpointLog),
      query('GSI3', GSI.endpointLog),
      query('GSI4', GSI.failedDeliveries),
    ],
    'delivery-sweeper': [
      ...GSI.dueShards.map((shard) => query('GSI2', shard)),
      query('GSI2', GSI.recoveries),
      request('UpdateItem', PK.delivery),
    ],
    // The purger (shared/secrets/purge-store.ts): the due purges, the deleted record (at the head's key; before v1.4
    // in the secret's partition), the partition's keys, the versions in batches, then the list item and the record in
    // one transaction of deletes.
    'secret-purger': [
      query('GSI2', GSI.purges),
      request('GetItem', PK.workspace),
      request('GetItem', PK.purge),
      request('Query', PK.version),
      request('BatchWriteItem', PK.version, PK.versionId),
      request('DeleteItem', PK.workspace),
      request('DeleteItem', PK.purge),
    ],
    // The rotation runner (shared/rotation/rotation-steps.ts, shared/secrets/secret-writer.ts, shared/rotation/rotation-store.ts): the lease read,
    // moved on and ended; the head and key item read; a value written (head, path and key items, the version
    // and its VersionId claim, the audit entry, in one transaction) or a label change written (head, path, key item,
    // audit entry); a redelivered step's version read by its VersionId. A scheduled start takes the lease and claims
    // the token's VersionId the same way.
    // The sync worker (shared/syncs/pipeline/sync-run-store.ts; the secrets service's revealEnvironment through
    // shared/secrets/environment-value-store.ts, secret-bulk-reveals.ts, reveal-limit-store.ts): the sync read, its
    // lease taken and given back; the environment read, a page of its path items queried
    // (the cursor key read, or made, for a page that continues), counted on the sync's and the workspace's counters,
    // audited; references resolved (heads by path, batch-read); the push ended in one transaction: the outcome with
    // the lease, the written keys' item read before and then put or deleted, the `sync.update` entry.
    'sync-worker': [
      request('GetItem', PK.workspace),
      { action: 'UpdateItem', leadingKeys: [PK.workspace], attributes: ['PK', 'SK', 'leaseOwner', 'leaseUntil'] },
      request('Query', PK.workspace),
      request('BatchGetItem', PK.workspace, PK.workspace),
      request('PutItem', PK.workspace),
      request('GetItem', PK.cursorKey),
      request('PutItem', PK.cursorKey),
      request('UpdateItem', PK.syncCounter),
      request('UpdateItem', PK.workspaceCounter),
      request('PutItem', PK.audit),
      {
        action: 'UpdateItem',
        leadingKeys: [PK.workspace],
        attributes: ['PK', 'SK', 'status', 'lastSyncedAt', 'lastError', 'failingSince', 'pushedThrough', 'leaseOwner', 'leaseUntil'],
      },
      request('DeleteItem', PK.workspace),
    ],
    rotation: [
      request('GetItem', PK.rotation),
      request('GetItem', PK.workspace),
      request('GetItem', PK.versionId),
      request('GetItem', PK.version),
      request('UpdateItem', PK.rotation),
      request('PutItem', PK.workspace),
      request('PutItem', PK.version),
      request('PutItem', PK.versionId),
      request('PutItem', PK.audit),
    ],
    // The audit digester (shared/audit-digests/digest-store.ts): the workspaces on GSI2, each workspace's last digest
    // and its entries (one Query each of the audit partition), the digest item put there.
    'audit-digester': [
      query('GSI2', GSI.allWorkspaces),
      request('Query', PK.audit),
      request('PutItem', keys.auditDigest(WS, '2026-01-01T00:00:00.000Z').PK),
    ],
    // The audit stream worker (shared/audit-streams/delivery/stream-health.ts): the stream read, its delivery health
    // written (a delivery, a failure), and a disabling: status, updatedAt and revision with its system audit entry.
    'audit-stream-worker': [
      request('GetItem', PK.workspace),
      { action: 'UpdateItem', leadingKeys: [PK.workspace], attributes: ['PK', 'SK', 'lastDeliveredAt', 'failingSince', 'lastError'] },
      {
        action: 'UpdateItem',
        leadingKeys: [PK.workspace],
        attributes: ['PK', 'SK', 'status', 'lastError', 'updatedAt', 'revision', 'failingSince'],
      },
      request('PutItem', PK.audit),
    ],
  };
})();

describe('what each role can reach on the table', () => {
  it('prints, per role, the actions and the partition keys its statements reach', () => {
    const rows = FUNCTION_NAMES.flatMap((name) => reachOf(statements[name], tableArn).map((row) => ({ role: name, ...row })));
    console.log(
      [
        'role | effect | action | partition keys (dynamodb:LeadingKeys) | other conditions',
        ...rows.map((r) => `${r.role} | ${r.effect} | ${r.action} | ${r.partitions} | ${r.limits}`),
      ].join('\n'),
    );
    expect(new Set(rows.map((row) => row.role))).toEqual(new Set(FUNCTION_NAMES));
  });

  it.each(FUNCTION_NAMES)('lets %s make every request its code makes', (name) => {
    const refused = NEEDS[name].filter((need) => !can(name, need));
    expect(refused).toEqual([]);
  });

  it('lets no role reach a partition no function lists, nor an item by a key of a shape the service never makes', () => {
    for (const name of FUNCTION_NAMES) {
      for (const action of [...WRITES, 'GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem']) {
        expect({ name, action, allowed: can(name, request(action, 'OTHER#x')) }).toEqual({ name, action, allowed: false });
        // A workspace id one character short: IAM's `?` stands for exactly one character.
        expect({ name, action, allowed: can(name, request(action, `WS#${WS.slice(0, -1)}`)) }).toEqual({ name, action, allowed: false });
      }
      expect(can(name, { action: 'Query', index: 'GSI1', leadingKeys: ['ALLOWLIST'] })).toBe(false);
    }
  });

  it("tells a workspace's partition from its audit, version and delivery partitions", () => {
    const reaching = (action: string, key: string) => FUNCTION_NAMES.filter((name) => can(name, request(action, key)));
    // Secrets' versions are written by the REST secrets group, the AWS API (which writes and purges them too), a change
    // request's merge and the
    // rotation runner (a rotation without a function writes its value); the purger deletes them, and puts nothing.
    expect(reaching('PutItem', PK.version)).toEqual(['secrets', 'aws', 'change-requests', 'rotation']);
    expect(reaching('BatchWriteItem', PK.version)).toEqual(['secrets', 'aws', 'secret-purger']);
    expect(reaching('BatchWriteItem', PK.workspace)).toEqual([]);
    expect(reaching('PutItem', PK.workspace).includes('secret-purger')).toBe(false);
    // The audit log is read by its route group, and by the digester, which digests it.
    expect(reaching('Query', PK.audit)).toEqual(['audit', 'audit-digester']);
    expect(reaching('PutItem', PK.delivery)).toEqual(['webhook-deliveries', 'webhook-fanout']);
    expect(reaching('BatchWriteItem', PK.delivery)).toEqual(['webhooks']);
  });
});

describe('the rotation runner', () => {
  it("reaches a secret's items only: no Query, batch, delete or index, no credential, delivery, counter or idempotency item", () => {
    for (const action of ['Query', 'BatchGetItem', 'BatchWriteItem', 'DeleteItem', 'ConditionCheckItem']) {
      for (const key of [PK.workspace, PK.version, PK.rotation]) {
        expect({ action, key, allowed: can('rotation', request(action, key)) }).toEqual({ action, key, allowed: false });
      }
    }
    const elsewhere = [
      PK.token,
      PK.delivery,
      PK.apiKeyCounter,
      PK.workspaceCounter,
      PK.idempotency,
      PK.cursorKey,
      PK.macKey,
      PK.accessKeyById,
      PK.loginTokens,
    ];
    for (const key of elsewhere) {
      for (const action of [...WRITES, 'GetItem']) {
        expect({ action, key, allowed: can('rotation', request(action, key)) }).toEqual({ action, key, allowed: false });
      }
    }
    // The head changes only through the writer's conditional puts; the audit log is written, never read.
    expect(can('rotation', request('UpdateItem', PK.workspace))).toBe(false);
    expect(can('rotation', request('GetItem', PK.audit))).toBe(false);
    expect(can('rotation', query('GSI1', GSI.workspaceSecrets))).toBe(false);
  });
});

describe('the audit digester', () => {
  it('reaches the audit partitions (Query, put) and the GSI2 list of workspaces alone: no GetItem, update, delete or batch, nothing else', () => {
    for (const action of ['GetItem', 'UpdateItem', 'DeleteItem', 'BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem']) {
      expect({ action, allowed: can('audit-digester', request(action, PK.audit)) }).toEqual({ action, allowed: false });
    }
    const elsewhere = Object.entries(PK).filter(([name]) => name !== 'audit');
    for (const [name, key] of elsewhere) {
      for (const action of [...WRITES, 'GetItem', 'BatchGetItem', 'Query']) {
        expect({ name, action, allowed: can('audit-digester', request(action, key)) }).toEqual({ name, action, allowed: false });
      }
    }
    // GSI2 holds other lists too (due deliveries, purges, recoveries): the workspaces' alone.
    for (const key of [GSI.purges, GSI.recoveries, ...GSI.dueShards]) expect(can('audit-digester', query('GSI2', key))).toBe(false);
    expect(can('audit-digester', query('GSI1', GSI.workspaceSecrets))).toBe(false);
  });
});

describe('the sync worker', () => {
  it("changes a sync's item only in its lease and its outcome (never destination, token, keys, prune or revision), and batch-writes nothing", () => {
    for (const attribute of ['destination', 'sealedToken', 'keys', 'prune', 'revision', 'environmentId']) {
      const changes = { action: 'UpdateItem', leadingKeys: [PK.workspace], attributes: ['PK', 'SK', attribute] };
      expect({ attribute, allowed: can('sync-worker', changes) }).toEqual({ attribute, allowed: false });
    }
    for (const key of [PK.workspace, PK.version, PK.audit]) expect(can('sync-worker', request('BatchWriteItem', key))).toBe(false);
    // Nothing of a secret's versions, credentials, deliveries or idempotency records.
    for (const key of [PK.version, PK.token, PK.delivery, PK.idempotency, PK.macKey]) {
      for (const action of [...WRITES, 'GetItem', 'Query']) {
        expect({ action, key, allowed: can('sync-worker', request(action, key)) }).toEqual({ action, key, allowed: false });
      }
    }
  });
});

describe('the audit log and the credentials', () => {
  it('lets no role but the audit writers put into an audit partition', () => {
    for (const name of FUNCTION_NAMES) {
      expect({ name, puts: can(name, request('PutItem', PK.audit)) }).toEqual({ name, puts: AUDIT_WRITERS.includes(name) });
    }
  });

  it('lets no role update, delete or batch-write an audit entry, with every other grant it might get', () => {
    for (const name of FUNCTION_NAMES) {
      for (const action of ['UpdateItem', 'DeleteItem', 'BatchWriteItem']) {
        expect({ name, action, allowed: allows(withEverythingAllowed(name), tableArn, request(action, PK.audit)) }).toEqual({
          name,
          action,
          allowed: false,
        });
      }
      // A batch that names a single audit item among others is refused whole.
      expect(allows(withEverythingAllowed(name), tableArn, request('BatchWriteItem', PK.version, PK.audit))).toBe(false);
      expect(allows(withEverythingAllowed(name), tableArn, { action: 'UpdateItem', leadingKeys: [PK.audit], attributes: LAST_USED })).toBe(
        false,
      );
    }
  });

  it('denies the put of an audit entry to every role but the writers, whatever else it is allowed', () => {
    for (const name of FUNCTION_NAMES) {
      expect({ name, puts: allows(withEverythingAllowed(name), tableArn, request('PutItem', PK.audit)) }).toEqual({
        name,
        puts: AUDIT_WRITERS.includes(name),
      });
    }
  });

  it('lets no role put over an audit entry unconditionally: IAM sees no condition, so this is who may put at all (the writers), and their puts are conditional (test/unit/platform/store-conditions.test.ts)', () => {
    const writers = FUNCTION_NAMES.filter(
      (name) => can(name, request('PutItem', PK.audit)) || can(name, request('BatchWriteItem', PK.audit)),
    );
    expect(writers).toEqual(AUDIT_WRITERS);
    expect(FUNCTION_NAMES.filter((name) => can(name, request('BatchWriteItem', PK.audit)))).toEqual([]);
  });

  it('lets only the access-keys and login functions create a credential item, whatever else a role is allowed', () => {
    for (const name of FUNCTION_NAMES) {
      const creator = CREDENTIAL_CREATORS.includes(name);
      expect({ name, creates: can(name, request('PutItem', PK.token)) }).toEqual({ name, creates: creator });
      expect({ name, denied: !allows(withEverythingAllowed(name), tableArn, request('PutItem', PK.token)) }).toEqual({
        name,
        denied: !creator,
      });
      expect(allows(withEverythingAllowed(name), tableArn, request('BatchWriteItem', PK.token))).toBe(creator);
    }
  });

  it("lets the other API functions change only a token item's lastUsedAt (not revoke, un-revoke or extend it)", () => {
    for (const name of FUNCTION_NAMES) {
      const touches = can(name, { action: 'UpdateItem', leadingKeys: [PK.token], attributes: LAST_USED });
      // The login authenticates no token, so it touches none.
      expect({ name, touches }).toEqual({ name, touches: API_FUNCTIONS.includes(name as never) && name !== 'auth' });
      for (const attribute of ['revokedAt', 'expiresAt', 'workspaceId']) {
        const changes = { action: 'UpdateItem', leadingKeys: [PK.token], attributes: ['PK', attribute] };
        expect({ name, attribute, allowed: can(name, changes) }).toEqual({ name, attribute, allowed: name === 'access-keys' });
        expect({ name, attribute, allowed: allows(withEverythingAllowed(name), tableArn, changes) }).toEqual({
          name,
          attribute,
          allowed: name === 'access-keys',
        });
      }
      // Asking for the whole item back is no lastUsedAt update either.
      expect(can(name, { action: 'UpdateItem', leadingKeys: [PK.token], attributes: LAST_USED, returnValues: 'ALL_OLD' })).toBe(
        name === 'access-keys',
      );
    }
  });
});

describe('the service MAC key', () => {
  it('lets no role write it, whatever else it is allowed', () => {
    for (const name of FUNCTION_NAMES) {
      for (const action of WRITES) {
        expect({ name, action, allowed: allows(withEverythingAllowed(name), tableArn, request(action, PK.macKey)) }).toEqual({
          name,
          action,
          allowed: false,
        });
      }
    }
  });

  it('lets the API functions that check issued tokens, and only them, read it and unseal it under its two purposes alone', () => {
    const [keyId] = secretsKeyOf(template, stack);
    for (const name of FUNCTION_NAMES) {
      // The AWS API too: the session token of temporary credentials is a login's token.
      const api = API_FUNCTIONS.includes(name as never);
      expect({ name, reads: can(name, request('GetItem', PK.macKey)) }).toEqual({ name, reads: api });
      const unseal = statements[name].filter((s) => JSON.stringify(s.Condition ?? {}).includes('kms:EncryptionContext:purpose'));
      expect({ name, unseal }).toEqual({
        name,
        unseal: api
          ? [
              {
                Effect: 'Allow',
                Action: ['kms:Decrypt'],
                Resource: { 'Fn::GetAtt': [keyId, 'Arn'] },
                Condition: {
                  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['purpose'] },
                  Null: { 'kms:EncryptionContext:purpose': 'false' },
                  StringEquals: { 'kms:EncryptionContext:purpose': ['service-mac-key', 'token-checksum-key'] },
                },
              },
            ]
          : [],
      });
    }
  });
});

describe('the grants stay deployable', () => {
  it('keeps each role inline policy under IAM’s 10,240 characters, its ARNs counted at 100 characters each', () => {
    for (const name of FUNCTION_NAMES) {
      const roleId = idOf(stack, functionsOf(stack)[name].role);
      const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
        JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`),
      );
      const text = JSON.stringify(
        policies.map((policy) => policy.Properties.PolicyDocument),
        (_key, value: unknown) =>
          value &&
          typeof value === 'object' &&
          !Array.isArray(value) &&
          Object.keys(value).some((key) => key.startsWith('Fn::') || key === 'Ref')
            ? 'x'.repeat(100)
            : value,
      );
      expect(text.length, name).toBeLessThan(10_240);
    }
  });

  it('refuses at synth an access that contradicts its own Denies (it would fail only in AWS: DynamoDB Local ignores IAM)', () => {
    const audit = `WS#ws_${'?'.repeat(26)}#AUDIT`;
    expect(() => checkAccess('f', { items: { PutItem: [audit] } })).toThrow(
      'f: writesAudit must be set exactly when it puts audit entries',
    );
    expect(() => checkAccess('f', { items: { GetItem: [audit] }, writesAudit: true })).toThrow('writesAudit must be set exactly');
    expect(() => checkAccess('f', { items: { PutItem: ['TOKEN#*'] } })).toThrow(
      'createsCredentials must be set exactly when it puts credential items',
    );
    expect(() => checkAccess('f', { items: { GetItem: ['TOKEN#*'] }, createsCredentials: true })).toThrow(
      'createsCredentials must be set exactly',
    );
    expect(() => checkAccess('f', { items: { BatchWriteItem: [audit] } })).toThrow('never batch-written');
    expect(() => checkAccess('f', { items: { BatchWriteItem: ['TOKEN#*'] } })).toThrow('never batch-written');
    expect(() => checkAccess('f', { items: { GetItem: [] } })).toThrow('an action with no partition');
    expect(() => checkAccess('f', { items: { PutItem: [audit, 'TOKEN#*'] }, writesAudit: true, createsCredentials: true })).not.toThrow();
    expect(() => checkAccess('f', { items: { UpdateItem: ['TOKEN#*'] } })).toThrow(
      'changesCredentials must be set exactly when it updates credential items in full',
    );
    expect(() => checkAccess('f', { items: { GetItem: ['TOKEN#*'] }, changesCredentials: true })).toThrow(
      'changesCredentials must be set exactly',
    );
  });
});
