import { Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * The role EventBridge Scheduler assumes for one schedule group's schedules: trusted only for schedules of that
 * group in this account (`aws:SourceAccount`, `aws:SourceArn`), and allowed only to send to one queue. The queues are
 * SQS-managed encrypted, so there is no KMS key to let it use.
 */
export function schedulerSendRole(scope: Construct, props: { description: string; group: ScheduleGroup; queue: IQueue }): Role {
  const role = new Role(scope, 'SchedulerRole', {
    description: props.description,
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: {
        StringEquals: {
          'aws:SourceAccount': Stack.of(scope).account,
          'aws:SourceArn': props.group.scheduleGroupArn,
        },
      },
    }),
  });
  role.addToPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.queue.queueArn] }));
  return role;
}
