/**
 * What other features use of workspaces: the workspace item (which carries its keys' state), the token item an
 * access key or login writes with it in one transaction, and the stores of both: workspaces and tokens (the API
 * functions' authenticator reads credentials there, shared/access/api-runtime.ts), projects and environments (the
 * secrets store reads them, shared/secrets/secret-wiring.ts). Their functions build the projects service through
 * project-wiring.ts, and the admin CLI the workspace service, not through here: both ask access's refusals or tokens,
 * and access's stores write workspace items through this file, so exporting them would close an import cycle.
 * Entry modules besides this file (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry project-answers.ts what the projects and environments routes answer, for them and the API description
 * @entry project-wiring.ts the projects service as the projects and environments functions build it
 */
export { makeWorkspaceStore, tokenPut, type TokenItem, type WorkspaceItem, type WorkspaceStore } from './workspace-store.ts';
export { makeProjectStore, type ProjectStore } from './project-store.ts';
