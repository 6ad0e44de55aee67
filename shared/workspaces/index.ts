/**
 * What other features use of workspaces: the workspace item (which carries its keys' state), the token item an
 * access key or login writes with it in one transaction, and the workspace store, where the API functions' and the
 * AWS API's authenticators read credentials (shared/access/api-runtime.ts). The services are built through
 * workspace-wiring.ts, not here: they ask access's refusals and tokens, and access's stores write workspace items
 * through this file, so exporting them would close an import cycle. Entry modules besides this file
 * (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry project-answers.ts what the projects and environments routes answer, for them and the API description
 * @entry workspace-wiring.ts the projects service as its functions build it, and the operators' workspace service
 * @entry project-store.ts the project store, which the secrets store reads: the AWS API's cold start reads this file
 * and must not hold it (that function loads it with its later operations)
 */
export { makeWorkspaceStore, tokenPut, type TokenItem, type WorkspaceItem, type WorkspaceStore } from './workspace-store.ts';
export type { ProjectStore } from './project-store.ts';
