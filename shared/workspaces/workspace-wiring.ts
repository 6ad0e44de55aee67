import type { Clock } from '../platform/clock.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeProjectService } from './project-service.ts';
import { makeProjectStore } from './project-store.ts';
import { makeReviewPolicies } from './review-policies.ts';
import { makeReviewPolicyStore } from './review-policy-store.ts';

/** The operators' workspace service: the admin CLI and the local stack's bootstrap build it over the workspace store. */
export { makeWorkspaceAdminService, type WorkspaceAdminStore } from './workspace-service.ts';

/**
 * The projects and environments route groups' service over the project store, as each function builds it once per
 * container, with the environments' review policies (review-policies.ts).
 */
export function projectServiceOf(deps: { db: Db; pager: Pager; clock: Clock }) {
  const store = makeProjectStore(deps.db, deps.pager);
  return {
    ...makeProjectService({ store, clock: deps.clock }),
    ...makeReviewPolicies({ store: { ...store, ...makeReviewPolicyStore(deps.db) }, clock: deps.clock }),
  };
}

/** The service `projectServiceOf` builds: projects, environments and their review policies. */
export type ProjectService = ReturnType<typeof projectServiceOf>;
