import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { idOf, makeOutdir, type Resource, type Statement, statementsOf, synth } from './synth.ts';

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;

beforeAll(async () => {
  outdir = await makeOutdir('infra-audit-digests-');
  // Act
  ({ stack, template } = synth(outdir.dir, { auditRetentionDays: 400 }));
});

afterAll(async () => {
  await outdir.cleanup();
});

const resourceOf = (construct: Parameters<typeof idOf>[1]) => template.toJSON().Resources[idOf(stack, construct)] as Resource;
const keyArn = () => ({ 'Fn::GetAtt': [idOf(stack, stack.auditDigests.signingKey), 'Arn'] });
const bucketObjects = () => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [idOf(stack, stack.auditDigests.bucket), 'Arn'] }, '/*']] });
/** Every statement of every role's policies, with its actions as an array. */
const allStatements = () =>
  (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Statement[]).map((s) => ({ ...s, Action: [s.Action].flat() })),
  );

describe('the audit bucket', () => {
  it('locks every object in compliance mode for auditRetentionDays, versioned, and is kept whatever the stage', () => {
    const bucket = resourceOf(stack.auditDigests.bucket);
    expect(bucket.Properties.ObjectLockEnabled).toBe(true);
    expect(bucket.Properties.ObjectLockConfiguration).toEqual({
      ObjectLockEnabled: 'Enabled',
      Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 400 } },
    });
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.Properties.LifecycleConfiguration).toBeUndefined();
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    // A throwaway stage keeps it too: its locked objects could not be deleted anyway.
    const dev = synth(outdir.dir, { stage: 'dev', removalPolicy: 'destroy' });
    const devBucket = dev.template.toJSON().Resources[idOf(dev.stack, dev.stack.auditDigests.bucket)] as Resource;
    expect(devBucket).toMatchObject({ DeletionPolicy: 'Retain' });
    expect(devBucket.Properties.ObjectLockConfiguration.Rule.DefaultRetention).toEqual({ Mode: 'COMPLIANCE', Days: 365 });
  });

  it('is private, encrypted with S3 keys, and refuses plain HTTP', () => {
    const bucket = resourceOf(stack.auditDigests.bucket);
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    const policy = (Object.values(template.findResources('AWS::S3::BucketPolicy')) as Resource[]).find(
      (found) => JSON.stringify(found.Properties.Bucket) === JSON.stringify({ Ref: idOf(stack, stack.auditDigests.bucket) }),
    );
    expect(policy?.Properties.PolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });

  it('refuses a retention S3 would refuse, naming the setting', () => {
    for (const days of [0, 36_501, 1.5]) {
      expect(() => synth(outdir.dir, { auditRetentionDays: days }), String(days)).toThrow(
        /auditRetentionDays must be a whole number of days from 1 to 36500; got/,
      );
    }
  });
});

describe('the signing key', () => {
  it('is an ECC_NIST_P256 signing key with its stage alias, never rotated, kept', () => {
    const key = resourceOf(stack.auditDigests.signingKey);
    expect(key.Properties).toMatchObject({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', PendingWindowInDays: 30 });
    expect(key.Properties.EnableKeyRotation ?? false).toBe(false);
    expect(key).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/prod-audit-digests', TargetKeyId: keyArn() });
  });

  it("lets the digester's role alone sign, ECDSA_SHA_256 over a digest only; the account administers it and reads its public key", () => {
    const statements = resourceOf(stack.auditDigests.signingKey).Properties.KeyPolicy.Statement as Statement[];
    const signing = statements.filter((s) => [s.Action].flat().some((action) => action === 'kms:Sign' || action === 'kms:*'));
    expect(signing).toEqual([
      {
        Sid: 'SignByTheDigesterOnly',
        Effect: 'Allow',
        Principal: { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] } },
        Action: 'kms:Sign',
        Resource: '*',
        Condition: {
          StringEquals: { 'kms:SigningAlgorithm': 'ECDSA_SHA_256', 'kms:MessageType': 'DIGEST' },
          ArnEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [idOf(stack, stack.auditDigests.digester.role), 'Arn'] } },
        },
      },
    ]);
    const admin = statements.find((s) => s.Sid === 'KeyAdministrationByThisAccount');
    expect(admin?.Action).toContain('kms:Get*');
  });
});

describe('the digester', () => {
  it('runs from an EventBridge rule at minute 20 of every hour, EventBridge retrying twice within the hour, Lambda never', () => {
    const rule = resourceOf(stack.auditDigests.schedule);
    const digesterId = idOf(stack, stack.auditDigests.digester.function);
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'cron(20 * * * ? *)', State: 'ENABLED' });
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [digesterId, 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
      }),
    ]);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: digesterId }, MaximumRetryAttempts: 0 });
  });

  it('is told the key and the bucket, and no shorter period', () => {
    const variables = resourceOf(stack.auditDigests.digester.function).Properties.Environment.Variables;
    expect(variables).toMatchObject({ AUDIT_SIGNING_KEY_ID: keyArn(), AUDIT_BUCKET: { Ref: idOf(stack, stack.auditDigests.bucket) } });
    expect(variables.AUDIT_DIGEST_PERIOD_SECONDS).toBeUndefined();
  });

  it('may sign and read the public key of its key, and write and read its objects: nothing else outside the table', () => {
    const outside = statementsOf(template, stack, stack.auditDigests.digester).filter(
      (s) => s.Action.some((action) => action.startsWith('kms:') || action.startsWith('s3:')) && s.Effect === 'Allow',
    );
    expect(outside).toEqual([
      {
        Effect: 'Allow',
        Action: ['kms:Sign'],
        Resource: keyArn(),
        Condition: { StringEquals: { 'kms:SigningAlgorithm': 'ECDSA_SHA_256', 'kms:MessageType': 'DIGEST' } },
      },
      { Effect: 'Allow', Action: ['kms:GetPublicKey'], Resource: keyArn() },
      { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: bucketObjects() },
    ]);
  });

  it('lets no role delete an audit object, change its lock or bypass it, and no role but the digester write or sign', () => {
    const statements = allStatements();
    const actions = statements.flatMap((s) => s.Action);
    for (const forbidden of [
      /^s3:Delete/,
      /^s3:PutObjectRetention$/,
      /^s3:PutObjectLegalHold$/,
      /^s3:BypassGovernanceRetention$/,
      /^s3:\*$/,
    ]) {
      const onAudit = statements.filter(
        (s) =>
          s.Action.some((action) => forbidden.test(action)) && JSON.stringify(s.Resource).includes(idOf(stack, stack.auditDigests.bucket)),
      );
      expect({ forbidden: String(forbidden), onAudit }).toEqual({ forbidden: String(forbidden), onAudit: [] });
    }
    expect(actions.filter((action) => action === 'kms:Sign')).toHaveLength(1);
    const writers = statements.filter(
      (s) => s.Action.includes('s3:PutObject') && JSON.stringify(s.Resource).includes(idOf(stack, stack.auditDigests.bucket)),
    );
    expect(writers).toHaveLength(1);
  });
});

describe('the audit route group', () => {
  it('is told the signing key and may read its public key, and nothing else of it', () => {
    const audit = stack.api.functions.audit;
    expect(resourceOf(audit.function).Properties.Environment.Variables.AUDIT_SIGNING_KEY_ID).toEqual(keyArn());
    const onKey = statementsOf(template, stack, audit).filter((s) => JSON.stringify(s.Resource) === JSON.stringify(keyArn()));
    expect(onKey).toEqual([{ Effect: 'Allow', Action: ['kms:GetPublicKey'], Resource: keyArn() }]);
    // No other function touches the signing key.
    const others = allStatements().filter((s) => JSON.stringify(s.Resource).includes(idOf(stack, stack.auditDigests.signingKey)));
    expect(others).toHaveLength(3);
  });
});

describe('outputs', () => {
  it('name the audit bucket and the signing key', () => {
    const outputs = template.toJSON().Outputs;
    expect(outputs.AuditBucketName.Value).toEqual({ Ref: idOf(stack, stack.auditDigests.bucket) });
    expect(outputs.AuditSigningKeyArn.Value).toEqual(keyArn());
  });
});
