import { describe, expect, it } from 'vitest';
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
