import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { makeDocumentClient } from '../shared/platform/clients/dynamodb.ts';
import { systemClock } from '../shared/platform/clock.ts';
import { isId } from '../shared/platform/ids.ts';
import { makeWorkspaceAdminService } from '../shared/workspaces/workspace-wiring.ts';
import { makeWorkspaceStore } from '../shared/workspaces/index.ts';
import { indexFailedDeliveries, migrateDeliveryLog } from './migrate-delivery-log.ts';
import { migrateWorkspacesList } from './migrate-workspaces-list.ts';
import { makeKmsClient } from '../shared/platform/clients/kms.ts';
import type { KeyProvider } from '../shared/platform/crypto/key-provider.ts';
import { makeKmsKeyProvider } from '../shared/platform/crypto/kms-key-provider.ts';
import { LOCAL_MASTER_KEY_FILE, makeLocalKeyring } from '../shared/platform/crypto/local-keyring.ts';
import { ensureOperatorMacs } from '../shared/platform/crypto/mac-key.ts';
import { loadOnce } from '../shared/platform/on-first-use.ts';
import { makeMacKeyStore } from '../shared/platform/store/mac-key-store.ts';
import { awsOperator, localOperator } from './operator.ts';
import { createIdentity } from './local/sts.ts';
import { InvalidFunctionError, runFunctionCommand } from './local/local-functions.ts';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  workspace create --name NAME [--allowlist]     create a workspace and its first API key
  allowlist add --workspace WS_ID                 put a workspace on the private-beta allowlist
  allowlist remove --workspace WS_ID              take it off (its requests get WORKSPACE_NOT_ALLOWLISTED)
  allowlist list                                  list allowlisted workspace ids
  api-key create --workspace WS_ID [--name NAME]  create a workspace API key (shown once)
  api-key revoke --workspace WS_ID --key KEY_ID   revoke it at once
  mac-key ensure [--kms-key KEY_ARN]              make the service MAC key if the table has none (see below)
  deliveries migrate-log                          once after upgrading to the delivery log index (GSI3): moves
                                                  older deliveries' log keys from GSI1 to it (a Scan of the table)
  deliveries index-failed                         once after upgrading to recoveries: lists older failed
                                                  deliveries for POST /webhooks/{id}/recover (a Scan of the table)
  workspaces migrate-list                         once after upgrading to audit digests: puts older workspaces
                                                  into the list the digester walks (a Scan of the table)
  iam-identity create --arn ARN                   local stack only: credentials its STS stand-in answers for ARN
                                                  (an IAM role or user; a role answers as an assumed role)
  function add --name NAME --handler FILE[#export] [--env K=V]...
                                                  local stack only: a rotation function (export default: handler)
                                                  answering for arn:aws:lambda:us-east-1:000000000000:function:NAME;
                                                  each invocation runs it in a child Node process whose environment
                                                  is only PATH, HOME, these variables, AWS_REGION=us-east-1 and
                                                  SECRETS_MANAGER_ENDPOINT (the local API). Adding a NAME again replaces it.
                                                  e.g. function add --name rotate-db --handler ./rotate.ts#rotate
                                                       --env AWS_ACCESS_KEY_ID=AKIA... --env AWS_SECRET_ACCESS_KEY=...
  function list                                   local stack only: the registered functions (names of variables only)

Every change is audited in the workspace's own log (actorSub "operator", metadata.operator naming you: your AWS
caller identity for a deployed table, your OS user for the local stack).

Tokens end in a checksum keyed with the service MAC key, kept sealed in the table under the stack's KMS key.
Commands that issue an API key make it first if the table has none: against a deployed table that needs
--kms-key with the stack's SecretsKeyArn output, once (afterwards the key is only unsealed, with your credentials).

Target (default: the local stack described by LOCAL_DIR/stack.json, LOCAL_DIR defaulting to .local):
  --table NAME --region REGION                    a deployed table, with the standard AWS credentials chain
  --local-dir DIR                                 another local stack's folder
`;

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

const OPTIONS = {
  name: { type: 'string' },
  allowlist: { type: 'boolean', default: false },
  workspace: { type: 'string' },
  key: { type: 'string' },
  table: { type: 'string' },
  region: { type: 'string' },
  'kms-key': { type: 'string' },
  'local-dir': { type: 'string' },
  arn: { type: 'string' },
  handler: { type: 'string' },
  env: { type: 'string', multiple: true },
  help: { type: 'boolean', default: false },
} as const;

type TargetFlags = {
  table?: string | undefined;
  region?: string | undefined;
  'local-dir'?: string | undefined;
  'kms-key'?: string | undefined;
};

/** The local stack's folder: `--local-dir`, else LOCAL_DIR, else `.local`. */
const localDirOf = (values: TargetFlags) => values['local-dir'] ?? process.env.LOCAL_DIR ?? '.local';

function target(values: TargetFlags) {
  if (values.table) {
    const doc = makeDocumentClient(values.region ? { region: values.region } : {});
    return { doc, tableName: values.table, store: makeWorkspaceStore({ doc, tableName: values.table }), keys: awsKeyProvider(values) };
  }
  const file = join(localDirOf(values), 'stack.json');
  let stack: { dynamodbEndpoint: string; tableName: string };
  try {
    stack = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new UsageError(`No local stack found (${file}): start it with "npm start", or pass --table and --region`);
  }
  const doc = makeDocumentClient({ endpoint: stack.dynamodbEndpoint });
  const keys = makeLocalKeyring({ keyFile: join(dirname(file), LOCAL_MASTER_KEY_FILE) });
  return { doc, tableName: stack.tableName, store: makeWorkspaceStore({ doc, tableName: stack.tableName }), keys };
}

/**
 * KMS with the operator's credentials. Unsealing names no key (a symmetric ciphertext carries its key's id); making
 * the MAC key needs `--kms-key`, so an operator never seals it under a key the functions cannot use.
 */
function awsKeyProvider(values: TargetFlags): KeyProvider {
  const kms = makeKmsClient(values.region ? { region: values.region } : {});
  const keyId = values['kms-key'];
  const provider = makeKmsKeyProvider({ kms, keyId });
  return {
    decryptDataKey: (encrypted, context) => provider.decryptDataKey(encrypted, context),
    generateDataKey: (context) => {
      if (!keyId)
        throw new UsageError("This table has no service MAC key yet: pass --kms-key with the stack's SecretsKeyArn output once to make it");
      return provider.generateDataKey(context);
    },
  };
}

function required<T>(value: T | undefined, flag: string, check?: (v: T) => boolean): T {
  if (value === undefined || value === '' || (check && !check(value))) throw new UsageError(`--${flag} is required and must be valid`);
  return value;
}

/** Runs one admin command and answers what it prints as JSON. */
export async function runAdmin(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  if (values.help || positionals.length === 0) throw new UsageError('');
  if (positionals.join(' ') === 'iam-identity create') {
    if (values.table)
      throw new UsageError('iam-identity create: only for the local stack (its STS stand-in); on AWS, IAM makes identities');
    return createIdentity(localDirOf(values), required(values.arn, 'arn'));
  }
  if (positionals[0] === 'function') {
    const command = positionals.slice(1).join(' ');
    if (values.table)
      throw new UsageError(
        `function ${command}: only for the local stack; on AWS, list the function's ARN in the context rotationFunctionArns`,
      );
    return runFunctionCommand(localDirOf(values), command, values).catch((error: unknown) => {
      throw error instanceof InvalidFunctionError ? new UsageError(error.message) : error;
    });
  }
  const { doc, tableName, store, keys } = target(values);
  const command = positionals.join(' ');
  // A table migration changes no workspace: nothing to audit.
  if (command === 'deliveries migrate-log') return migrateDeliveryLog(doc, tableName);
  if (command === 'deliveries index-failed') return indexFailedDeliveries(doc, tableName);
  if (command === 'workspaces migrate-list') return migrateWorkspacesList(doc, tableName);
  // Every change is audited in the workspace's log with the operator's identity.
  const operator = values.table ? await awsOperator(values.region) : localOperator();
  const macs = loadOnce(() => ensureOperatorMacs(makeMacKeyStore({ doc, tableName }), keys));
  const admin = makeWorkspaceAdminService({ store, clock: systemClock, operator, macs });
  const workspace = () => required(values.workspace, 'workspace', (v) => isId('workspace', v));
  switch (command) {
    case 'workspace create':
      return admin.createWorkspace({ name: required(values.name, 'name', (v) => v.length <= 120), allowlisted: values.allowlist });
    case 'allowlist add':
      return admin.setAllowlisted(workspace(), true);
    case 'allowlist remove':
      return admin.setAllowlisted(workspace(), false);
    case 'allowlist list':
      return { workspaceIds: await admin.listAllowlisted() };
    case 'api-key create': {
      const { id, apiKey, tokenPrefix } = await admin.createApiKey(workspace(), values.name ?? 'api key');
      return { workspaceId: values.workspace, apiKeyId: id, apiKey, tokenPrefix };
    }
    case 'mac-key ensure':
      await macs();
      return { macKey: 'present' };
    case 'api-key revoke':
      return admin.revokeApiKey(
        workspace(),
        required(values.key, 'key', (v) => isId('apiKey', v)),
      );
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

if (import.meta.main) {
  runAdmin(process.argv.slice(2)).then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
      process.stderr.write(`${error instanceof Error && error.message ? `${error.message}\n` : ''}${usage ? USAGE : ''}`);
      process.exit(usage ? 2 : 1);
    },
  );
}
