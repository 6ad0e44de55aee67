import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import {
  FUNCTION_NAMES,
  functionsOf,
  idOf,
  makeOutdir,
  secretsKeyOf,
  type Resource,
  type Statement,
  statementsOf,
  synth,
} from './synth.ts';

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;
let statements: Statement[];

beforeAll(async () => {
  outdir = await makeOutdir('infra-key-policy-');
  // Act
  ({ stack, template } = synth(outdir.dir));
  statements = secretsKeyOf(template, stack)[1].Properties.KeyPolicy.Statement as Statement[];
});

afterAll(async () => {
  await outdir.cleanup();
});

/** Whether an action pattern of a policy (with * wildcards) covers `action`. */
const covers = (pattern: string, action: string) => new RegExp(`^${pattern.replace(/\*/g, '.*')}$`, 'i').test(action);
const actionsOf = (statement: Statement) => [statement.Action].flat() as string[];
/** The account root as CloudFormation spells it (AccountRootPrincipal). */
const ACCOUNT_ROOT = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] };
/** The role a key-policy statement is limited to (`aws:PrincipalArn`), if any. */
const principalArnOf = (statement: Statement) =>
  (statement.Condition as { ArnEquals?: Record<string, unknown> } | undefined)?.ArnEquals?.['aws:PrincipalArn'];
/** The key-policy statements of operators: the MAC roots, nothing else (lib/encryption.ts `operatorMacKeyStatements`). */
const OPERATOR_SIDS = ['OperatorsMakeMacKeys', 'OperatorsUnsealTheTokenChecksumKey'];
const USE = [
  'kms:Decrypt',
  'kms:Encrypt',
  'kms:GenerateDataKey',
  'kms:GenerateDataKeyWithoutPlaintext',
  'kms:ReEncryptFrom',
  'kms:ReEncryptTo',
  'kms:CreateGrant',
];

describe('the secrets key can be used only by the service', () => {
  it('lets no principal but the function roles use the key: the account only administers it, and makes the MAC roots', () => {
    const account = statements.find((s) => s.Sid === 'KeyAdministrationByThisAccount')!;
    for (const action of USE)
      expect(
        actionsOf(account).some((pattern) => covers(pattern, action)),
        action,
      ).toBe(false);
    const users = statements.filter((s) => USE.some((action) => actionsOf(s).some((pattern) => covers(pattern, action))));
    expect(users.length).toBeGreaterThan(0);
    const roleArns = Object.values(functionsOf(stack)).map((fn) => ({ 'Fn::GetAtt': [idOf(stack, fn.role), 'Arn'] }));
    for (const statement of users.filter((s) => !OPERATOR_SIDS.includes(s.Sid!))) {
      expect(statement.Effect).toBe('Allow');
      expect(roleArns).toContainEqual(principalArnOf(statement));
    }
  });

  it('lets operators (the account, with the admin CLI) make both MAC roots and unseal only the token root, under no other context', () => {
    const purpose = (values: string[]) => ({
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['purpose'] },
      Null: { 'kms:EncryptionContext:purpose': 'false' },
      StringEquals: { 'kms:EncryptionContext:purpose': values },
    });
    const operators = statements.filter((s) => OPERATOR_SIDS.includes(s.Sid!));
    expect(operators).toEqual([
      {
        Sid: 'OperatorsMakeMacKeys',
        Effect: 'Allow',
        Principal: { AWS: ACCOUNT_ROOT },
        Action: 'kms:GenerateDataKey',
        Resource: '*',
        Condition: purpose(['service-mac-key', 'token-checksum-key']),
      },
      {
        Sid: 'OperatorsUnsealTheTokenChecksumKey',
        Effect: 'Allow',
        Principal: { AWS: ACCOUNT_ROOT },
        Action: 'kms:Decrypt',
        Resource: '*',
        Condition: purpose(['token-checksum-key']),
      },
    ]);
  });

  it('names no principal KMS must look up but the account, so a role created in the same deploy cannot fail the key', () => {
    // KMS refuses a policy naming a principal it cannot see yet; a just-created role may not be visible.
    for (const statement of statements)
      expect({ sid: statement.Sid, principal: statement.Principal }).toEqual({ sid: statement.Sid, principal: { AWS: ACCOUNT_ROOT } });
  });

  it('keeps cdk deploy and key administration working: the account may put the policy, describe, tag, rotate and schedule deletion', () => {
    const account = statements.find((s) => s.Sid === 'KeyAdministrationByThisAccount')!;
    // What CloudFormation calls to create, update, tag, rotate and delete the key and its alias.
    const cloudFormation = [
      'kms:PutKeyPolicy',
      'kms:GetKeyPolicy',
      'kms:DescribeKey',
      'kms:EnableKeyRotation',
      'kms:DisableKeyRotation',
      'kms:GetKeyRotationStatus',
      'kms:TagResource',
      'kms:UntagResource',
      'kms:ListResourceTags',
      'kms:ScheduleKeyDeletion',
      'kms:CancelKeyDeletion',
      'kms:EnableKey',
      'kms:DisableKey',
      'kms:CreateAlias',
      'kms:UpdateAlias',
      'kms:DeleteAlias',
      'kms:ListAliases',
      'kms:UpdateKeyDescription',
    ];
    expect(account).toMatchObject({ Effect: 'Allow', Principal: { AWS: expect.anything() }, Resource: '*' });
    expect(account.Condition).toBeUndefined();
    for (const action of cloudFormation) {
      expect(
        actionsOf(account).some((pattern) => covers(pattern, action)),
        action,
      ).toBe(true);
    }
  });

  it('grants each function that needs the key exactly its actions with its encryption context, in the key policy itself', () => {
    const answers = { actions: ['kms:Decrypt', 'kms:GenerateDataKey'], context: ['workspaceId', 'idempotencyRecord'] };
    // Every API function unseals the two MAC roots, under their purposes alone.
    const macRoots = {
      actions: ['kms:Decrypt'],
      context: ['purpose'],
      values: { 'kms:EncryptionContext:purpose': ['service-mac-key', 'token-checksum-key'] },
    };
    const expected: Record<string, { actions: string[]; context: string[]; values?: unknown }[]> = {
      projects: [macRoots],
      environments: [macRoots],
      secrets: [{ actions: ['kms:Decrypt', 'kms:GenerateDataKey'], context: ['workspaceId', 'secretId', 'version'] }, macRoots],
      audit: [macRoots],
      webhooks: [{ actions: ['kms:GenerateDataKey'], context: ['workspaceId', 'endpointId'] }, answers, macRoots],
      // Creating a key with auth aws_sigv4 seals its secret access key.
      'access-keys': [{ actions: ['kms:GenerateDataKey'], context: ['workspaceId', 'accessKeyId'] }, answers, macRoots],
      'webhook-deliveries': [macRoots],
      // A login signs its token's checksum with the MAC roots.
      auth: [macRoots],
      // The AWS API seals and opens values, opens the signing keys' secret halves, and checks session tokens (MAC roots).
      aws: [
        { actions: ['kms:Decrypt', 'kms:GenerateDataKey'], context: ['workspaceId', 'secretId', 'version'] },
        { actions: ['kms:Decrypt'], context: ['workspaceId', 'accessKeyId'] },
        macRoots,
      ],
      'delivery-worker': [{ actions: ['kms:Decrypt'], context: ['workspaceId', 'endpointId'] }],
      // The rotation runner seals a rotated value, and opens a redelivered step's to compare.
      rotation: [{ actions: ['kms:Decrypt', 'kms:GenerateDataKey'], context: ['workspaceId', 'secretId', 'version'] }],
      // Change requests seal and open proposed values under their own context, and a merge seals each version it writes.
      'change-requests': [
        { actions: ['kms:Decrypt', 'kms:GenerateDataKey'], context: ['workspaceId', 'changeRequestId', 'key'] },
        { actions: ['kms:GenerateDataKey'], context: ['workspaceId', 'secretId', 'version'] },
        macRoots,
      ],
      // Syncs seal a GitHub token under its own context, and never open one (the sync worker does).
      syncs: [{ actions: ['kms:GenerateDataKey'], context: ['workspaceId', 'syncId'] }, macRoots],
      // Audit streams seal each credential under its own context (and open them for a test's send), and seal and open
      // a create's recorded answer (an https stream's signing secret).
      'audit-streams': [
        { actions: ['kms:Decrypt', 'kms:GenerateDataKey'], context: ['workspaceId', 'auditStreamId', 'credential'] },
        answers,
        macRoots,
      ],
      // The sync worker opens the values it pushes and the sync's GitHub token; it seals nothing and checks no token.
      'sync-worker': [
        { actions: ['kms:Decrypt'], context: ['workspaceId', 'secretId', 'version'] },
        { actions: ['kms:Decrypt'], context: ['workspaceId', 'syncId'] },
      ],
      // The audit stream worker opens a stream's credentials to send; it seals nothing and checks no token.
      'audit-stream-worker': [{ actions: ['kms:Decrypt'], context: ['workspaceId', 'auditStreamId', 'credential'] }],
    };
    for (const name of FUNCTION_NAMES) {
      const role = { 'Fn::GetAtt': [idOf(stack, functionsOf(stack)[name].role), 'Arn'] };
      const grants = statements.filter((s) => JSON.stringify(principalArnOf(s)) === JSON.stringify(role));
      const got = grants.map((grant) => {
        const condition = grant.Condition as {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': string[] };
          StringEquals?: unknown;
        };
        return {
          actions: actionsOf(grant).sort(),
          context: condition['ForAllValues:StringEquals']['kms:EncryptionContextKeys'],
          ...(condition.StringEquals !== undefined && { values: condition.StringEquals }),
        };
      });
      expect({ name, got }).toEqual({ name, got: expected[name] ?? [] });
    }
    expect(new Set(statements.map((s) => s.Sid)).size).toBe(statements.length);
  });

  it('carries the table Denies on every function role: audit entries immutable, the MAC key read-only, audit puts and credentials to their writers', () => {
    const tableArn = { 'Fn::GetAtt': [idOf(stack, stack.data.table), 'Arn'] };
    const auditWriters = [
      'projects',
      'environments',
      'secrets',
      'access-keys',
      'webhooks',
      'webhook-deliveries',
      'auth',
      'aws',
      'delivery-worker',
      'rotation',
      'change-requests',
      'syncs',
      'audit-streams',
      'sync-worker',
      // Its digest items go into the audit partitions (conditional puts).
      'audit-digester',
      // A stream disabled after failing: its system audit entry.
      'audit-stream-worker',
    ];
    for (const name of FUNCTION_NAMES) {
      const denies = statementsOf(template, stack, functionsOf(stack)[name]).filter((s) => s.Effect === 'Deny');
      expect(denies.every((deny) => JSON.stringify(deny.Resource) === JSON.stringify(tableArn))).toBe(true);
      const sids = [
        'AuditEntriesAreImmutable',
        'MacKeyIsReadOnly',
        ...(auditWriters.includes(name) ? [] : ['OnlyAuditWritersPutAuditEntries']),
        // Access keys create and change credential items; a login creates its token and changes none.
        ...(name === 'access-keys' || name === 'auth' ? [] : ['OnlyTheCredentialWriterCreatesCredentials']),
        ...(name === 'access-keys' ? [] : ['CredentialsChangeOnlyByLastUse']),
      ];
      expect({ name, denies: denies.map((deny) => deny.Sid).sort() }).toEqual({ name, denies: sids.sort() });
    }
  });

  it('has no dependency cycle between the key and the roles', () => {
    const [keyId, key] = secretsKeyOf(template, stack) as [string, Resource];
    const roles = Object.keys(template.findResources('AWS::IAM::Role'));
    const dependsOn = JSON.stringify(key);
    for (const roleId of roles) {
      const role = template.findResources('AWS::IAM::Role')[roleId] as Resource;
      if (dependsOn.includes(roleId)) expect(JSON.stringify(role)).not.toContain(keyId);
    }
  });
});
