/**
 * What other features use of workspaces: the workspace item (which carries its keys' state) and the token item an
 * access key or login writes with it in one transaction. Entry modules besides this file (architecture.test.ts
 * reads these lines, as a package's `exports` map):
 * @entry project-answers.ts what the projects and environments routes answer, for them and the API description
 */
export { tokenPut, type TokenItem, type WorkspaceItem } from './workspace-store.ts';
/** Projects and environments, which the secrets store reads (its wiring, secret-wiring.ts). */
export { makeProjectStore } from './project-store.ts';
