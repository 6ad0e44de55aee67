import type { Clock } from '../platform/clock.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeProjectService } from './project-service.ts';
import { makeProjectStore } from './project-store.ts';

export type { ProjectService } from './project-service.ts';
/** The operators' workspace service: the admin CLI and the local stack's bootstrap build it over the workspace store. */
export { makeWorkspaceAdminService, type WorkspaceAdminStore } from './workspace-service.ts';

/** The projects and environments route groups' service over the project store, as each function builds it once per container. */
export function projectServiceOf(deps: { db: Db; pager: Pager; clock: Clock }) {
  return makeProjectService({ store: makeProjectStore(deps.db, deps.pager), clock: deps.clock });
}
