import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { FUNCTION_NAMES, functionsOf, idOf, makeOutdir, only, type Resource, type Statement, statementsOf, synth } from './synth.ts';

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;
let statements: Statement[];

beforeAll(async () => {
  outdir = await makeOutdir('infra-key-policy-');
  // Act
  ({ stack, template } = synth(outdir.dir));
  statements = only(template, 'AWS::KMS::Key')[1].Properties.KeyPolicy.Statement as Statement[];
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
const principalArnOf = (statement: Statement) => (statement.Condition as { ArnEquals?: Record<string, unknown> } | undefined)?.ArnEquals?.['aws:PrincipalArn'];
const USE = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey', 'kms:GenerateDataKeyWithoutPlaintext', 'kms:ReEncryptFrom', 'kms:ReEncryptTo', 'kms:CreateGrant'];

describe('the secrets key can be used only by the service', () => {
  it('lets no principal but the function roles use the key: the account only administers it', () => {
    const account = statements.find((s) => s.Sid === 'KeyAdministrationByThisAccount')!;
    for (const action of USE) expect(actionsOf(account).some((pattern) => covers(pattern, action)), action).toBe(false);
    const users = statements.filter((s) => USE.some((action) => actionsOf(s).some((pattern) => covers(pattern, action))));
    expect(users.length).toBeGreaterThan(0);
    const roleArns = Object.values(functionsOf(stack)).map((fn) => ({ 'Fn::GetAtt': [idOf(stack, fn.role), 'Arn'] }));
    for (const statement of users) {
      expect(statement.Effect).toBe('Allow');
      expect(roleArns).toContainEqual(principalArnOf(statement));
    }
  });

  it('names no principal KMS must look up but the account, so a role created in the same deploy cannot fail the key', () => {
    // KMS refuses a policy naming a principal it cannot see yet; a just-created role may not be visible.
    for (const statement of statements) expect({ sid: statement.Sid, principal: statement.Principal }).toEqual({ sid: statement.Sid, principal: { AWS: ACCOUNT_ROOT } });
  });

  it('keeps cdk deploy and key administration working: the account may put the policy, describe, tag, rotate and schedule deletion', () => {
    const account = statements.find((s) => s.Sid === 'KeyAdministrationByThisAccount')!;
    // What CloudFormation calls to create, update, tag, rotate and delete the key and its alias.
    const cloudFormation = [
      'kms:PutKeyPolicy', 'kms:GetKeyPolicy', 'kms:DescribeKey', 'kms:EnableKeyRotation', 'kms:DisableKeyRotation', 'kms:GetKeyRotationStatus',
      'kms:TagResource', 'kms:UntagResource', 'kms:ListResourceTags', 'kms:ScheduleKeyDeletion', 'kms:CancelKeyDeletion', 'kms:EnableKey',
      'kms:DisableKey', 'kms:CreateAlias', 'kms:UpdateAlias', 'kms:DeleteAlias', 'kms:ListAliases', 'kms:UpdateKeyDescription',
    ];
    expect(account).toMatchObject({ Effect: 'Allow', Principal: { AWS: expect.anything() }, Resource: '*' });
    expect(account.Condition).toBeUndefined();
    for (const action of cloudFormation) {
      expect(actionsOf(account).some((pattern) => covers(pattern, action)), action).toBe(true);
    }
  });

  it('grants each function that needs the key exactly its actions with its encryption context, in the key policy itself', () => {
    const answers = { actions: ['kms:Decrypt', 'kms:GenerateDataKey'], context: ['workspaceId', 'idempotencyRecord'] };
    const expected: Record<string, { actions: string[]; context: string[] }[]> = {
      secrets: [{ actions: ['kms:Decrypt', 'kms:GenerateDataKey'], context: ['workspaceId', 'secretId', 'version'] }],
      webhooks: [{ actions: ['kms:GenerateDataKey'], context: ['workspaceId', 'endpointId'] }, answers],
      'access-keys': [answers],
      'delivery-worker': [{ actions: ['kms:Decrypt'], context: ['workspaceId', 'endpointId'] }],
    };
    for (const name of FUNCTION_NAMES) {
      const role = { 'Fn::GetAtt': [idOf(stack, functionsOf(stack)[name].role), 'Arn'] };
      const grants = statements.filter((s) => JSON.stringify(principalArnOf(s)) === JSON.stringify(role));
      const got = grants.map((grant) => ({
        actions: actionsOf(grant).sort(),
        context: (grant.Condition as { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': string[] } })['ForAllValues:StringEquals']['kms:EncryptionContextKeys'],
      }));
      expect({ name, got }).toEqual({ name, got: expected[name] ?? [] });
    }
    expect(new Set(statements.map((s) => s.Sid)).size).toBe(statements.length);
  });

  it('denies every function role updating or deleting an audit item, and batch writes to it but where its code batches audit puts', () => {
    const tableArn = { 'Fn::GetAtt': [idOf(stack, stack.data.table), 'Arn'] };
    for (const name of FUNCTION_NAMES) {
      const denies = statementsOf(template, stack, functionsOf(stack)[name]).filter((s) => s.Effect === 'Deny');
      // Only the secrets function writes audit entries with BatchWriteItem (loading an environment).
      const batch = name === 'secrets' ? [] : ['dynamodb:BatchWriteItem'];
      expect({ name, denies }).toEqual({
        name,
        denies: [
          expect.objectContaining({
            Action: [...batch, 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
            Resource: tableArn,
            Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['WS#*#AUDIT'] } },
          }),
        ],
      });
    }
  });

  it('has no dependency cycle between the key and the roles', () => {
    const [keyId, key] = only(template, 'AWS::KMS::Key') as [string, Resource];
    const roles = Object.keys(template.findResources('AWS::IAM::Role'));
    const dependsOn = JSON.stringify(key);
    for (const roleId of roles) {
      const role = template.findResources('AWS::IAM::Role')[roleId] as Resource;
      if (dependsOn.includes(roleId)) expect(JSON.stringify(role)).not.toContain(keyId);
    }
  });
});
