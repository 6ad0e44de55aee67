import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ServiceStack, type ServiceStackProps } from '../../lib/service-stack.ts';
import { consoleDir, makeOutdir, NO_BUNDLING } from './synth.ts';

/** Every finding the stack acknowledges, by rule; a new one must be added here, in review, with its reason in lib/. */
const ACKNOWLEDGED = [
  'AwsSolutions-APIG4',
  'AwsSolutions-IAM5[Resource::*]',
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/prod-webhook-retries/*]',
  // The rotation runner keeps one schedule per rotated secret (lib/secret-rotation.ts).
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/prod-rotations/rotate-*]',
  'AwsSolutions-SQS3',
  // The rotation functions an operator lists by a pattern (lib/secret-rotation.ts): EVERYTHING lists one.
  'AwsSolutions-IAM5[Resource::arn:aws:lambda:eu-west-1:111122223333:function:rotate-*]',
  // The console (lib/console-site.ts): its bucket and distribution, and BucketDeployment's function and grants.
  'AwsSolutions-S1',
  'AwsSolutions-CFR1',
  'AwsSolutions-CFR2',
  'AwsSolutions-CFR3',
  'AwsSolutions-CFR4',
  'AwsSolutions-L1',
  'AwsSolutions-IAM5[Action::s3:GetObject*]',
  'AwsSolutions-IAM5[Action::s3:GetBucket*]',
  'AwsSolutions-IAM5[Action::s3:List*]',
  'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
  'AwsSolutions-IAM5[Action::s3:Abort*]',
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
  'AwsSolutions-IAM5[Resource::<ConsoleSiteBucket380F1C30.Arn>/*]',
  // The audit digests (lib/audit-digests.ts): the digester writes objects by workspace and hour; its bucket keeps
  // no access logs (the console's bucket acknowledges S1 too, so the rule is listed twice).
  'AwsSolutions-IAM5[Resource::<AuditDigestsDigestBucketD23BAC18.Arn>/*]',
  'AwsSolutions-S1',
];
/** Everything optional switched on, so every resource the stack can have is checked. */
const EVERYTHING: ServiceStackProps = {
  jwt: { issuer: 'https://idp.example.com/', audience: 'secrets-api', jwksUri: 'https://idp.example.com/.well-known/jwks.json' },
  alarmEmail: 'oncall@example.com',
  consoleDir: consoleDir(),
  consoleClientId: 'secrets-console',
  rotationFunctionArns: [
    'arn:aws:lambda:eu-west-1:111122223333:function:rotate-*',
    'arn:aws:lambda:eu-west-1:111122223333:function:pg-rotation',
  ],
};

type Violation = { ruleName: string; violatingConstructs: { constructPath: string }[] };

let outdir: Awaited<ReturnType<typeof makeOutdir>>;

beforeAll(async () => {
  outdir = await makeOutdir('infra-nag-');
});

afterAll(async () => {
  await outdir.cleanup();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Synthesizes the app with the AwsSolutions pack; answers whether it passed and the findings of the report. */
async function synthWithNag(name: string, build: (app: App) => ServiceStack) {
  const app = new App({ outdir: join(outdir.dir, name), context: NO_BUNDLING });
  const stack = build(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let passed = true;
  try {
    app.synth();
  } catch {
    passed = false;
  }
  const report = JSON.parse(await readFile(join(outdir.dir, name, 'validation-report.json'), 'utf8')) as {
    pluginReports: { violations: Violation[] }[];
  };
  const findings = report.pluginReports
    .flatMap((plugin) => plugin.violations)
    .flatMap((violation) => violation.violatingConstructs.map((construct) => `${violation.ruleName} at ${construct.constructPath}`));
  return { app, stack, passed, findings };
}

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in the synthesized app', async () => {
    // Act
    const { passed, findings } = await synthWithNag('clean', (app) => new ServiceStack(app, 'SecretsService-nag', EVERYTHING));

    // Assess
    expect(findings).toEqual([]);
    expect(passed).toBe(true);
  });

  it('finds nothing unacknowledged in a throwaway stage (the console bucket empties itself on delete)', async () => {
    // Act
    const destroy = { ...EVERYTHING, stage: 'dev', removalPolicy: 'destroy' as const };
    const { passed, findings } = await synthWithNag('destroy', (app) => new ServiceStack(app, 'SecretsService-nag', destroy));

    // Assess
    expect(findings).toEqual([]);
    expect(passed).toBe(true);
  });

  it('finds nothing unacknowledged when the account and region are known at synth (the ARNs are spelled out)', async () => {
    // Act
    const env = { account: '123456789012', region: 'eu-west-1' };
    const { passed, findings } = await synthWithNag('env', (app) => new ServiceStack(app, 'SecretsService-nag', { ...EVERYTHING, env }));

    // Assess
    expect(findings).toEqual([]);
    expect(passed).toBe(true);
  });

  it('acknowledges exactly the listed findings, each with a written reason', async () => {
    // Act
    const { stack } = await synthWithNag('acknowledged', (app) => new ServiceStack(app, 'SecretsService-nag', EVERYTHING));

    // Assess
    const acknowledged = stack.node
      .findAll()
      .flatMap((construct) => construct.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .map(([id, reason]) => ({ id: id.replace(/^\w+::/, ''), reason }));
    expect(acknowledged.map(({ id }) => id).sort()).toEqual([...ACKNOWLEDGED].sort());
    for (const { id, reason } of acknowledged) {
      expect({ id, words: reason.trim().split(/\s+/).length }).toEqual({ id, words: expect.toSatisfy((n: number) => n >= 10) });
    }
  });

  it('needs every acknowledgement: without them, exactly the listed findings fail the synth', async () => {
    // Prepare
    vi.spyOn(Validations.prototype, 'acknowledge').mockImplementation(() => undefined);

    // Act
    const { passed, findings } = await synthWithNag('unacknowledged', (app) => new ServiceStack(app, 'SecretsService-nag', EVERYTHING));

    // Assess
    expect(passed).toBe(false);
    expect([...new Set(findings.map((finding) => finding.split(' at ')[0]))].sort()).toEqual([...new Set(ACKNOWLEDGED)].sort());
  });

  it('fails the synth on a finding nobody acknowledged', async () => {
    // Prepare: the service stack plus one queue that breaks AwsSolutions-SQS3 and -SQS4
    const build = (app: App) => {
      const stack = new ServiceStack(app, 'SecretsService-nag', {});
      new Queue(stack, 'CarelessQueue');
      return stack;
    };

    // Act
    const { passed, findings } = await synthWithNag('careless', build);

    // Assess
    expect(passed).toBe(false);
    expect(findings.sort()).toEqual([
      'AwsSolutions-SQS3 at SecretsService-nag/CarelessQueue/Resource',
      'AwsSolutions-SQS4 at SecretsService-nag/CarelessQueue/Resource',
    ]);
  });
});
