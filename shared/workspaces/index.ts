/**
 * What other features use of workspaces: the workspace item (which carries its keys' state) and the token item an
 * access key or login writes with it in one transaction.
 */
export { tokenPut, type TokenItem, type WorkspaceItem } from './workspace-store.ts';
/** Projects and environments, which the secrets store reads (its wiring, secret-wiring.ts). */
export { makeProjectStore } from './project-store.ts';
