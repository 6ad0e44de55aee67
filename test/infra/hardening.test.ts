import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { GROUPS, functionsOf, idOf, makeOutdir, only, secretsKeyOf, PIPELINE, type Resource, synth } from './synth.ts';

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;

beforeAll(async () => {
  outdir = await makeOutdir('infra-hardening-');
  ({ stack, template } = synth(outdir.dir));
});

afterAll(async () => {
  await outdir.cleanup();
});

describe('throttles and concurrency', () => {
  it('throttles the reveal routes (defaults 50/s, burst 100) and the login route (20/s, burst 40) on their own, below the API-wide limit', () => {
    const [, stage] = only(template, 'AWS::ApiGatewayV2::Stage');
    expect(stage.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
    expect(stage.Properties.RouteSettings).toEqual({
      'POST /api/v1/secrets/{secretId}/reveal': { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      'POST /api/v1/reveal': { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      'POST /api/v1/environments/{envId}/secrets/reveal': { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      // The one route a caller reaches without a token, which the per-key login limit alone cannot protect.
      'POST /api/v1/auth/login': { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
    });
  });

  it('creates the stage after the routes its settings name (API Gateway refuses a setting for a missing route)', () => {
    const [, stage] = only(template, 'AWS::ApiGatewayV2::Stage') as [string, Resource & { DependsOn?: string[] }];
    const routes = Object.entries(template.findResources('AWS::ApiGatewayV2::Route')) as [string, Resource][];
    for (const routeKey of Object.keys(stage.Properties.RouteSettings)) {
      const ids = routes.filter(([, route]) => route.Properties.RouteKey === routeKey).map(([id]) => id);
      expect({ routeKey, ids }).toEqual({ routeKey, ids: [expect.any(String)] });
      expect(stage.DependsOn ?? []).toContain(ids[0]);
    }
  });

  it('reserves no concurrency by default, and the configured amount for every API function when asked', () => {
    const functions = () => template.findResources('AWS::Lambda::Function');
    for (const fn of Object.values(functionsOf(stack)))
      expect(functions()[idOf(stack, fn.function)]?.Properties.ReservedConcurrentExecutions).toBeUndefined();
    // Act
    const reserved = synth(outdir.dir, { apiReservedConcurrency: 20, revealRouteThrottle: { rateLimit: 5, burstLimit: 10 } });
    // Assess: route groups only; the pipeline and the rotation runner keep their own limits (their queues' maximum
    // concurrency)
    const all = reserved.template.findResources('AWS::Lambda::Function');
    for (const group of GROUPS)
      expect(all[idOf(reserved.stack, reserved.stack.api.functions[group].function)]?.Properties.ReservedConcurrentExecutions).toBe(20);
    for (const name of PIPELINE)
      expect(
        all[idOf(reserved.stack, reserved.stack.delivery.functions[name].function)]?.Properties.ReservedConcurrentExecutions,
      ).toBeUndefined();
    expect(all[idOf(reserved.stack, reserved.stack.rotation.runner.function)]?.Properties.ReservedConcurrentExecutions).toBeUndefined();
    const [, stage] = only(reserved.template, 'AWS::ApiGatewayV2::Stage');
    expect(stage.Properties.RouteSettings['POST /api/v1/reveal']).toEqual({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 });
  });

  it('passes the workspace reveal ceiling and the required token type to the functions that read them', () => {
    const configured = synth(outdir.dir, {
      workspaceRevealsPerMinute: 600,
      jwt: { issuer: 'https://idp.example.com/', audience: 'api', jwksUri: 'https://idp.example.com/jwks', requiredType: 'at+jwt' },
    });
    const env = (name: keyof ServiceStack['api']['functions']) =>
      configured.template.findResources('AWS::Lambda::Function')[idOf(configured.stack, configured.stack.api.functions[name].function)]
        ?.Properties.Environment.Variables;
    expect(env('secrets')).toMatchObject({ REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE: '600', JWT_REQUIRED_TYPE: 'at+jwt' });
    expect(env('projects').REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE).toBeUndefined();
    expect(env('projects').JWT_REQUIRED_TYPE).toBe('at+jwt');
  });
});

describe('alarms of the hardening', () => {
  it('alarms on a spike of 401 answers, counted from the access log', () => {
    const filters = Object.values(template.findResources('AWS::Logs::MetricFilter')) as Resource[];
    const unauthorized = filters.find((filter) => filter.Properties.MetricTransformations[0].MetricName === 'UnauthorizedAnswers');
    expect(unauthorized?.Properties).toMatchObject({
      LogGroupName: { Ref: idOf(stack, stack.api.accessLogs) },
      FilterPattern: '{ $.status = "401" }',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'SecretsService-test-api-401-spike',
      MetricName: 'UnauthorizedAnswers',
      Threshold: 200,
      Period: 300,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('reports PutKeyPolicy, DisableKey and ScheduleKeyDeletion on the secrets key and the audit signing key to the alarm topic', () => {
    const [keyId] = secretsKeyOf(template, stack);
    const signingKeyId = idOf(stack, stack.auditDigests.signingKey);
    const [topicId] = only(template, 'AWS::SNS::Topic');
    const rules = (Object.values(template.findResources('AWS::Events::Rule')) as Resource[]).filter((rule) => rule.Properties.EventPattern);
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties.EventPattern).toEqual({
      source: ['aws.kms'],
      'detail-type': ['AWS API Call via CloudTrail'],
      detail: {
        eventSource: ['kms.amazonaws.com'],
        eventName: ['PutKeyPolicy', 'DisableKey', 'ScheduleKeyDeletion'],
        requestParameters: {
          keyId: [{ Ref: keyId }, { 'Fn::GetAtt': [keyId, 'Arn'] }, { Ref: signingKeyId }, { 'Fn::GetAtt': [signingKeyId, 'Arn'] }],
        },
      },
    });
    expect(rules[0]!.Properties.Targets).toEqual([expect.objectContaining({ Arn: { Ref: topicId } })]);
    const [, topicPolicy] = only(template, 'AWS::SNS::TopicPolicy');
    expect(topicPolicy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sns:Publish',
        Principal: { Service: 'events.amazonaws.com' },
        Resource: { Ref: topicId },
      }),
    );
  });
});
