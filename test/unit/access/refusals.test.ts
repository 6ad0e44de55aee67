import { describe, expect, it, vi } from 'vitest';
import { compilePolicy, withDefaults, type PermissionRuleInput } from '../../../shared/access/access-policy.ts';
import {
  assertMayCreateEnvironments,
  assertMayCreateProjects,
  assertMayManageAccessKeys,
  assertMayManageAuditStreams,
  assertMayManageSyncs,
  assertMayManageWebhooks,
  assertMayOperateDeliveries,
  assertMayReadAudit,
  mayCompareRepeatedWrite,
  requireAccess,
  type AccessScope,
} from '../../../shared/access/refusals.ts';
import { machineAuthority, roleAuthority } from '../../../shared/access/permissions.ts';
import type { Principal } from '../../../shared/platform/principal.ts';
import { ForbiddenError } from '../../../shared/platform/errors.ts';
import { makeAccessKeyService } from '../../../shared/access/access-key-service.ts';
import { makeAuditService } from '../../../shared/audit/audit-service.ts';
import { makeDeliveryStatsService } from '../../../shared/webhooks/stats/delivery-stats-service.ts';
import { makeProjectService } from '../../../shared/workspaces/project-service.ts';
import { makeWebhookOperations } from '../../../shared/webhooks/recovery/webhook-operations-service.ts';
import { makeDeliveryService } from '../../../shared/webhooks/deliveries/delivery-service.ts';
import { makeWebhookService } from '../../../shared/webhooks/endpoints/webhook-service.ts';
import { fakeCipher, fakeClock, fakeLogger, principal, testMacs } from '../support/fakes.ts';

/**
 * The one translation of the policy's verdict into an answer (shared/access/refusals.ts): hidden and absent are the
 * same NOT_FOUND, visible but not allowed is FORBIDDEN after the denial is recorded, and the admin-only areas are
 * FORBIDDEN to anyone but an admin. Over policies compiled from real rules.
 */

const caller = (rules: PermissionRuleInput[], admin = false, actorSub = 'machine:ak_1') =>
  principal({ kind: 'machine', actorSub, authority: { policy: compilePolicy(rules.map(withDefaults)), admin } });

// May read every key of app/prod, and write (so read) the keys DB_* there; sees nothing of project `other`.
const READ_PROD = { actions: ['read'], projects: ['app'], environments: ['prod'] } satisfies PermissionRuleInput;
const WRITE_DB = { actions: ['write'], projects: ['app'], environments: ['prod'], keys: ['DB_*'] } satisfies PermissionRuleInput;

interface Found {
  scope: AccessScope;
}
const found = (project: string, environment?: string, key?: string): Found => ({ scope: { project, environment, key } });
const scopeOf = (item: Found) => item.scope;

/** What `requireAccess` answers: the object, or the code and message of its refusal. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    (value) => value,
    (error: { code: string; message: string }) => `${error.code}: ${error.message}`,
  );

describe('requireAccess', () => {
  it('answers NOT_FOUND, worded the same, for an absent object and for one the caller may not see', async () => {
    // Prepare
    const reader = caller([READ_PROD]);
    const request = { notFound: 'secret not found' };

    // Act
    const absent = await outcome(requireAccess(reader, undefined, scopeOf, request));
    const hiddenProject = await outcome(requireAccess(reader, found('other'), scopeOf, request));
    const hiddenEnvironment = await outcome(requireAccess(reader, found('app', 'dev'), scopeOf, request));
    const hiddenKey = await outcome(requireAccess(caller([WRITE_DB]), found('app', 'prod', 'API_KEY'), scopeOf, request));

    // Assess
    expect([absent, hiddenProject, hiddenEnvironment, hiddenKey]).toEqual(Array(4).fill('NOT_FOUND: secret not found'));
  });

  it('answers what the caller may see, without an action or with one it may do', async () => {
    // Prepare
    const writer = caller([READ_PROD, WRITE_DB]);
    const project = found('app');
    const secret = found('app', 'prod', 'DB_URL');

    // Act
    const seen = await requireAccess(writer, project, scopeOf, { notFound: 'x' });
    const written = await requireAccess(writer, secret, scopeOf, { notFound: 'x', action: 'write' });
    const somewhere = await requireAccess(writer, found('app', 'prod'), scopeOf, { notFound: 'x', action: 'write' });

    // Assess
    expect(seen).toBe(project);
    expect(written).toBe(secret);
    expect(somewhere.scope).toEqual({ project: 'app', environment: 'prod', key: undefined });
  });

  it('records the denial, then answers FORBIDDEN naming the action and the place (a key, or any key of an environment)', async () => {
    // Prepare
    const reader = caller([READ_PROD]);
    const denied = vi.fn(async () => undefined);

    // Act
    const onKey = await outcome(
      requireAccess(reader, found('app', 'prod', 'DB_URL'), scopeOf, { notFound: 'x', action: 'reveal', denied }),
    );
    const onEnvironment = await outcome(requireAccess(reader, found('app', 'prod'), scopeOf, { notFound: 'x', action: 'write', denied }));

    // Assess
    expect(onKey).toBe('FORBIDDEN: This credential may not reveal DB_URL in app/prod');
    expect(onEnvironment).toBe('FORBIDDEN: This credential may not write any secret of app/prod');
    expect(denied).toHaveBeenCalledTimes(2);
  });

  it('decides the action where `on` says (a new key), and visibility where the object is (its environment)', async () => {
    // Prepare
    const writer = caller([WRITE_DB]);
    const environment = found('app', 'prod');
    const onKey = (key: string) => () => ({ project: 'app', environment: 'prod', key });

    // Act
    const allowed = await outcome(requireAccess(writer, environment, scopeOf, { notFound: 'x', action: 'write', on: onKey('DB_PASS') }));
    const refused = await outcome(requireAccess(writer, environment, scopeOf, { notFound: 'x', action: 'write', on: onKey('API_KEY') }));

    // Assess
    expect(allowed).toBe(environment);
    expect(refused).toBe('FORBIDDEN: This credential may not write API_KEY in app/prod');
  });

  it('never records a denial for an object the caller may not see', async () => {
    // Prepare
    const denied = vi.fn(async () => undefined);

    // Act
    const answer = await outcome(
      requireAccess(caller([READ_PROD]), found('other', 'prod', 'K'), scopeOf, { notFound: 'gone', action: 'write', denied }),
    );

    // Assess
    expect(answer).toBe('NOT_FOUND: gone');
    expect(denied).not.toHaveBeenCalled();
  });
});

describe('mayCompareRepeatedWrite', () => {
  it('compares for the writer of the version, or for a caller who may reveal the secret; no one else', () => {
    // Prepare
    const secret = { projectSlug: 'app', envSlug: 'prod', key: 'DB_URL' };
    const writer = caller([WRITE_DB], false, 'machine:ak_1');
    const revealer = caller([{ actions: ['reveal'] }], false, 'machine:ak_2');

    // Act
    const byWriter = mayCompareRepeatedWrite(writer, secret, 'machine:ak_1');
    const byOtherWriter = mayCompareRepeatedWrite(writer, secret, 'machine:ak_9');
    const byRevealer = mayCompareRepeatedWrite(revealer, secret, 'machine:ak_9');

    // Assess
    expect([byWriter, byOtherWriter, byRevealer]).toEqual([true, false, true]);
  });
});

describe('the admin-only areas', () => {
  it.each([
    ['manage access keys', assertMayManageAccessKeys],
    ['manage webhook endpoints', assertMayManageWebhooks],
    ['read or operate webhook deliveries', assertMayOperateDeliveries],
    ['read the audit log', assertMayReadAudit],
    ['create projects', assertMayCreateProjects],
    ['create environments', assertMayCreateEnvironments],
    ['manage syncs', assertMayManageSyncs],
    ['manage audit streams', assertMayManageAuditStreams],
  ])('%s: FORBIDDEN to a non-admin, naming the area; open to an admin', (area, assert) => {
    // Prepare
    const everything = [{ actions: ['read', 'reveal', 'write', 'delete'] }] satisfies PermissionRuleInput[];

    // Act, Assess
    expect(() => assert(caller(everything, false))).toThrow(
      expect.objectContaining({
        code: 'FORBIDDEN',
        message: `This credential may not ${area}: it needs an API key or a person with the admin role`,
      }),
    );
    expect(() => assert(caller([], true))).not.toThrow();
  });
});

/**
 * Admin-only services refuse at their top whatever route calls them (decisions.md: machine tokens never touch access
 * keys, webhooks, deliveries or audit, nor create projects or environments): a scoped machine token, and the
 * strongest person short of admin, get FORBIDDEN before any store or queue is touched. Removing any one assertion
 * makes its case reach the store, which throws something else.
 */

/** A dependency that fails the test if anything of it is used. */
const untouchable = <T extends object>(name: string): T =>
  new Proxy({} as T, {
    get: (_target, property) => {
      if (property === 'then') return undefined;
      throw new Error(`${name}.${String(property)} was touched before the refusal`);
    },
  });

const forbidden = (principal: Principal) => {
  const deps = { store: untouchable<never>('store'), clock: fakeClock(), macs: testMacs, cipher: fakeCipher(), log: fakeLogger() };
  const queue = async () => {
    throw new Error('a queue was touched before the refusal');
  };
  const accessKeys = makeAccessKeyService(deps);
  const audit = makeAuditService(deps);
  const projects = makeProjectService(deps);
  const webhooks = makeWebhookService({ ...deps, checkUrl: queue });
  const deliveries = makeDeliveryService({ ...deps, enqueue: queue });
  const operations = makeWebhookOperations({ ...deps, enqueue: queue, enqueueRecovery: queue });
  const stats = makeDeliveryStatsService({ ...deps, requestRollup: queue });
  const page = { limit: 10 };
  const calls: Record<string, () => Promise<unknown>> = {
    'access keys: create': () => accessKeys.create(principal, { name: 'ci' }),
    'access keys: list': () => accessKeys.list(principal, page),
    'access keys: get': () => accessKeys.get(principal, 'ak_01'),
    'access keys: update': () => accessKeys.update(principal, 'ak_01', { name: 'x' }),
    'access keys: revoke': () => accessKeys.revoke(principal, 'ak_01'),
    'audit: list': async () => audit.list(principal, page, {}),
    'projects: create': () => projects.createProject(principal, { name: 'App' }),
    'environments: create': () => projects.createEnvironment(principal, 'proj_01', { name: 'Dev' }),
    'webhooks: register': () => webhooks.register(principal, { url: 'https://example.com/hook', events: ['service.secret.create'] }),
    'webhooks: list': () => webhooks.list(principal, page),
    'webhooks: get': () => webhooks.get(principal, 'wh_01'),
    'webhooks: update': () => webhooks.update(principal, 'wh_01', { enabled: false }),
    'webhooks: rotate secret': () => webhooks.rotateSecret(principal, 'wh_01', 24),
    'webhooks: delete': () => webhooks.delete(principal, 'wh_01'),
    "webhooks: an endpoint's deliveries": () => webhooks.endpointDeliveries(principal, 'wh_01', page),
    'deliveries: list': () => deliveries.listDeliveries(principal, {}, page),
    'deliveries: get': () => deliveries.getDelivery(principal, 'dlv_01'),
    'deliveries: retry': () => deliveries.retry(principal, 'dlv_01'),
    'webhook operations: test event': () => operations.test(principal, 'wh_01'),
    'webhook operations: recover': () => operations.recover(principal, 'wh_01', { since: Date.now() - 60_000 }),
    'delivery statistics': () => stats.stats(principal, 'wh_01', undefined),
  };
  return Object.entries(calls);
};

const scopedMachine = principal({
  kind: 'machine',
  actorSub: 'mid_01',
  credentialId: 'ak_01',
  authority: { ...machineAuthority(), admin: false },
});

describe('admin-only services refuse a caller that does not administer the workspace, whatever the route', () => {
  it.each(forbidden(scopedMachine))('%s: FORBIDDEN for a machine token, nothing read or written', async (_name, call) => {
    await expect(call()).rejects.toBeInstanceOf(ForbiddenError);
  });

  it.each(forbidden(principal({ kind: 'user', actorSub: 'usr_dev', credentialId: 'usr_dev', authority: roleAuthority('developer') })))(
    '%s: FORBIDDEN for a developer',
    async (_name, call) => {
      await expect(call()).rejects.toBeInstanceOf(ForbiddenError);
    },
  );

  it('names the part of the administration it refused, never a credential', async () => {
    const [, call] = forbidden(scopedMachine).find(([name]) => name === 'access keys: create')!;
    await expect(call()).rejects.toThrow('This credential may not manage access keys: it needs an API key or a person with the admin role');
  });
});
