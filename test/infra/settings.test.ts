import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStackProps } from '../../lib/service-stack.ts';
import {
  FUNCTION_NAMES,
  type FunctionName,
  functionsOf,
  GROUPS,
  idOf,
  LOCAL_ONLY_SETTINGS,
  makeOutdir,
  PIPELINE,
  type Resource,
  synth,
} from './synth.ts';

const JWT = {
  issuer: 'https://idp.example.com/',
  audience: 'secrets-api',
  jwksUri: 'https://idp.example.com/.well-known/jwks.json',
  workspaceClaim: 'custom:workspace',
  roleClaim: 'groups',
  defaultRole: 'developer' as const,
};

let outdir: Awaited<ReturnType<typeof makeOutdir>>;

beforeAll(async () => {
  outdir = await makeOutdir('infra-settings-');
});

afterAll(async () => {
  await outdir.cleanup();
});

describe('ServiceStack with settings', () => {
  const settings: ServiceStackProps = {
    stage: 'dev',
    jwt: JWT,
    revealsPerMinute: 30,
    apiThrottle: { rateLimit: 5, burstLimit: 10 },
    logRetentionDays: 7,
    removalPolicy: 'destroy',
    alarmEmail: 'oncall@example.com',
  };

  it('gives every API function but the login and the AWS API the JWT settings, the four that reveal the reveal limit, and the login its STS endpoint and server id', () => {
    // Act
    const { stack, template } = synth(outdir.dir, settings);

    // Assess
    const functions = template.findResources('AWS::Lambda::Function');
    const env = (name: FunctionName) =>
      functions[idOf(stack, functionsOf(stack)[name].function)]!.Properties.Environment.Variables as Record<string, unknown>;
    for (const group of GROUPS.filter((name) => name !== 'auth' && name !== 'aws')) {
      expect(env(group)).toMatchObject({
        JWT_ISSUER: JWT.issuer,
        JWT_AUDIENCE: JWT.audience,
        JWT_JWKS_URI: JWT.jwksUri,
        JWT_WORKSPACE_CLAIM: JWT.workspaceClaim,
        JWT_ROLE_CLAIM: 'groups',
        JWT_DEFAULT_ROLE: 'developer',
      });
    }
    // The login authenticates nobody; the AWS API takes SigV4 signatures only.
    for (const name of [...PIPELINE, 'auth' as const, 'aws' as const])
      expect(Object.keys(env(name)).filter((key) => key.startsWith('JWT_'))).toEqual([]);
    // The stack's own region's STS endpoint, and by default this API's host name as the server id.
    const login = env('auth');
    expect(JSON.stringify(login.AWS_STS_ENDPOINT)).toContain('https://sts.');
    expect(JSON.stringify(login.IAM_SERVER_ID)).toContain('.execute-api.');
    for (const name of FUNCTION_NAMES.filter((n) => n !== 'auth')) expect(env(name).IAM_SERVER_ID).toBeUndefined();
    // The sync worker reveals what it pushes, counted as any reveal.
    const revealing: readonly string[] = ['secrets', 'aws', 'change-requests', 'sync-worker'];
    for (const name of revealing) expect(env(name as FunctionName).REVEAL_RATE_LIMIT_PER_MINUTE).toBe('30');
    for (const name of FUNCTION_NAMES.filter((n) => !revealing.includes(n))) expect(env(name).REVEAL_RATE_LIMIT_PER_MINUTE).toBeUndefined();
    for (const fn of Object.values(functions) as Resource[]) {
      for (const setting of LOCAL_ONLY_SETTINGS) expect(fn.Properties.Environment?.Variables ?? {}).not.toHaveProperty(setting);
    }
  });

  it('passes throttling, retention, stage names and the destroy policy through', () => {
    // Act
    const { template } = synth(outdir.dir, settings);

    // Assess
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
    });
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
    template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/dev-secrets' });
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'dev-webhook-retries' });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Delete' });
    template.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
  });

  it('refuses the destroy policy for the prod stage', () => {
    expect(() => synth(outdir.dir, { removalPolicy: 'destroy' })).toThrow(/removalPolicy "destroy" is refused for the prod stage/);
    expect(() => synth(outdir.dir, { stage: 'prod', removalPolicy: 'destroy' })).toThrow(/refused/);
  });

  it('rejects a retention that CloudWatch Logs does not offer', () => {
    expect(() => synth(outdir.dir, { logRetentionDays: 8 })).toThrow(/logRetentionDays must be one of .*got 8/);
  });
});
