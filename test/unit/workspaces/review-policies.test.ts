import { describe, expect, it, vi } from 'vitest';
import { roleAuthority } from '../../../shared/access/permissions.ts';
import { compilePolicy } from '../../../shared/access/access-policy.ts';
import { makeReviewPolicies } from '../../../shared/workspaces/review-policies.ts';
import { caught, fakeClock, principal } from '../support/fakes.ts';

/**
 * The review policies' service asks the access policy at its top, whatever its route checked (a service reused
 * behind another route stays closed): anyone but an admin is FORBIDDEN and nothing is read or written; an
 * environment the caller may not see is NOT_FOUND; removing a policy that is not there writes nothing.
 */

const ENV = {
  id: 'env_01',
  projectId: 'proj_01',
  name: 'Production',
  slug: 'prod',
  createdAt: '',
  projectSlug: 'app',
};
const POLICY = { requiredApprovals: 2, bypass: ['ak_01'] };

/** The service over a store holding `environment` (null: none). */
function harness(environment: Record<string, unknown> | null = ENV) {
  const store = {
    getEnvironment: vi.fn(async () => (environment ?? undefined) as typeof ENV | undefined),
    putReviewPolicy: vi.fn(async () => undefined),
    deleteReviewPolicy: vi.fn(async () => undefined),
  };
  return { store, service: makeReviewPolicies({ store, clock: fakeClock() }) };
}

describe('review policies service', () => {
  it.each([
    ['a developer', principal({ kind: 'user', authority: roleAuthority('developer') })],
    ['a machine token', principal({ kind: 'machine', authority: { policy: compilePolicy([]), admin: false } })],
  ])('%s is FORBIDDEN to set, read or remove a policy, and nothing is read or written', async (_who, caller) => {
    const h = harness({ ...ENV, reviewPolicy: POLICY });
    for (const act of [
      () => h.service.setReviewPolicy(caller, ENV.id, { requiredApprovals: 1 }),
      () => h.service.getReviewPolicy(caller, ENV.id),
      () => h.service.deleteReviewPolicy(caller, ENV.id),
    ]) {
      const error = await caught(act);
      expect([error.code, error.message]).toEqual([
        'FORBIDDEN',
        'This credential may not manage review policies: it needs an API key or a person with the admin role',
      ]);
    }
    expect([h.store.getEnvironment, h.store.putReviewPolicy, h.store.deleteReviewPolicy].map((f) => f.mock.calls.length)).toEqual([
      0, 0, 0,
    ]);
  });

  it('an admin sets a policy (bypass defaults to none), audited review_policy.set with the one it replaced', async () => {
    const h = harness({ ...ENV, reviewPolicy: POLICY });
    const answer = await h.service.setReviewPolicy(principal(), ENV.id, { requiredApprovals: 3 });
    expect(answer).toEqual({ environmentId: ENV.id, requiredApprovals: 3, bypass: [] });
    const [, place, stored, audit] = h.store.putReviewPolicy.mock.calls[0] as unknown as [
      string,
      { id: string },
      unknown,
      { action: string; metadata: unknown },
    ];
    expect([place.id, stored]).toEqual([ENV.id, { requiredApprovals: 3, bypass: [] }]);
    expect([audit.action, audit.metadata]).toEqual([
      'review_policy.set',
      expect.objectContaining({ requiredApprovals: 3, bypass: [], previous: POLICY }),
    ]);
  });

  it('an environment the caller may not see is NOT_FOUND, as an unknown one', async () => {
    const hidden = principal({ authority: { policy: compilePolicy([]), admin: true } });
    expect((await caught(() => harness().service.getReviewPolicy(hidden, ENV.id))).code).toBe('NOT_FOUND');
    expect((await caught(() => harness(null).service.getReviewPolicy(principal(), ENV.id))).code).toBe('NOT_FOUND');
  });

  it('removing a policy that is not there is NOT_FOUND and writes nothing; one that is, is audited review_policy.delete', async () => {
    const none = harness();
    expect((await caught(() => none.service.deleteReviewPolicy(principal(), ENV.id))).message).toBe(
      `environment ${ENV.id} has no review policy`,
    );
    expect(none.store.deleteReviewPolicy).not.toHaveBeenCalled();
    const some = harness({ ...ENV, reviewPolicy: POLICY });
    expect(await some.service.deleteReviewPolicy(principal(), ENV.id)).toEqual({ id: ENV.id, deleted: true });
    const audit = (some.store.deleteReviewPolicy.mock.calls[0] as unknown as [string, unknown, { action: string }])[2];
    expect(audit.action).toBe('review_policy.delete');
  });
});
