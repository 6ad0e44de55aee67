import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { idOf, makeOutdir, type Resource, synth } from './synth.ts';

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;

beforeAll(async () => {
  outdir = await makeOutdir('infra-purge-');
  // Act
  ({ stack, template } = synth(outdir.dir));
});

afterAll(async () => {
  await outdir.cleanup();
});

const scheduledRules = () =>
  (Object.values(template.findResources('AWS::Events::Rule')) as Resource[]).filter((rule) => rule.Properties.ScheduleExpression);
const targetOf = (rule: Resource): unknown => rule.Properties.Targets?.[0]?.Arn?.['Fn::GetAtt']?.[0];

describe('secret purger', () => {
  it('runs every 5 minutes from its own EventBridge rule, without retrying a failed run', () => {
    // Prepare
    const purgerId = idOf(stack, stack.purge.purger.function);
    // Assess
    const rules = scheduledRules().filter((rule) => targetOf(rule) === purgerId);
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Description: 'Purges deleted secrets whose recovery window has ended',
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [purgerId, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: purgerId }, MaximumRetryAttempts: 0 });
  });

  it("leaves purging out of the webhook sweeper's rule: one rule each, neither naming the other's work", () => {
    const sweeperId = idOf(stack, stack.delivery.functions['delivery-sweeper'].function);
    const sweeperRules = scheduledRules().filter((rule) => targetOf(rule) === sweeperId);
    expect(sweeperRules).toHaveLength(1);
    expect(sweeperRules[0]!.Properties.Description).not.toMatch(/purge/i);
  });

  it('raises an alarm when the purger fails, as for every function', () => {
    const alarm = stack.monitoring.alarms['secret-purger-errors'];
    expect(alarm).toBeDefined();
    const found = template.findResources('AWS::CloudWatch::Alarm')[idOf(stack, alarm!)] as Resource;
    expect(found.Properties).toMatchObject({
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(stack, stack.purge.purger.function) } }],
      Threshold: 1,
    });
  });
});
