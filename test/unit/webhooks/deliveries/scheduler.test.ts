import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  ConflictException,
  CreateScheduleCommand,
  SchedulerClient,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { ServiceUnavailableError } from '../../../../shared/platform/errors.ts';
import { atExpression, makeEventBridgeScheduler } from '../../../../shared/webhooks/deliveries/scheduler.ts';

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:webhook-deliveries';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/webhook-scheduler';
const GROUP = 'webhook-retries';
const NAME = 'whd_01J0000000000000000000000A-01J0000000000000000000000B';

const schedulerMock = mockClient(SchedulerClient);
const client = new SchedulerClient({ region: 'eu-west-1' });
const scheduler = makeEventBridgeScheduler({ client, groupName: GROUP, queueArn: QUEUE_ARN, roleArn: ROLE_ARN });
const createInput = (call = 0) => schedulerMock.commandCalls(CreateScheduleCommand)[call]!.args[0].input;

describe('EventBridge one-time scheduler', () => {
  const savedTz = process.env.TZ;
  beforeEach(() => {
    schedulerMock.reset();
  });
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it('creates a self-deleting at() schedule in UTC that sends the body to the delivery queue', async () => {
    // Prepare
    schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
    const at = Date.UTC(2026, 2, 29, 1, 30, 15);

    // Act
    await scheduler.schedule({ name: NAME, at, messageBody: '{"deliveryId":"whd_1"}' });

    // Assess
    expect(schedulerMock.commandCalls(CreateScheduleCommand)).toHaveLength(1);
    expect(createInput()).toEqual({
      Name: NAME,
      GroupName: GROUP,
      ScheduleExpression: 'at(2026-03-29T01:30:15)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: QUEUE_ARN, RoleArn: ROLE_ARN, Input: '{"deliveryId":"whd_1"}' },
      ActionAfterCompletion: 'DELETE',
    });
  });

  it('rounds milliseconds up to the next second so the schedule never fires early, whatever the local time zone', async () => {
    // Prepare: a zone far from UTC (+13:45 on that date), so a local-time formatter would give another day and hour
    process.env.TZ = 'Pacific/Chatham';
    const at = Date.UTC(2026, 11, 31, 23, 59, 59, 1);
    expect(new Date(at).getTimezoneOffset()).not.toBe(0);
    schedulerMock.on(CreateScheduleCommand).resolves({});

    // Act
    await scheduler.schedule({ name: NAME, at, messageBody: 'x' });

    // Assess
    expect(createInput().ScheduleExpression).toBe('at(2027-01-01T00:00:00)');
    expect(atExpression(Date.UTC(2026, 0, 2, 3, 4, 5, 0))).toBe('at(2026-01-02T03:04:05)');
    expect(atExpression(Date.UTC(2026, 0, 2, 3, 4, 5, 999))).toBe('at(2026-01-02T03:04:06)');
  });

  it('treats an existing schedule of the same name as already scheduled', async () => {
    // Prepare
    schedulerMock
      .on(CreateScheduleCommand)
      .resolvesOnce({})
      .rejects(new ConflictException({ Message: 'Schedule already exists', message: 'Schedule already exists', $metadata: {} }));

    // Act
    await scheduler.schedule({ name: NAME, at: Date.UTC(2026, 0, 1), messageBody: 'x' });
    const second = scheduler.schedule({ name: NAME, at: Date.UTC(2026, 0, 1), messageBody: 'x' });

    // Assess
    await expect(second).resolves.toBeUndefined();
    expect(schedulerMock.commandCalls(CreateScheduleCommand).map((call) => call.args[0].input.Name)).toEqual([NAME, NAME]);
  });

  it('refuses names EventBridge Scheduler would reject without calling it', async () => {
    // Prepare
    const bad = ['', 'a'.repeat(65), 'has space', 'slash/name', 'colon:name', 'ümlaut'];

    // Act
    const results = await Promise.allSettled(bad.map((name) => scheduler.schedule({ name, at: Date.UTC(2026, 0, 1), messageBody: 'x' })));

    // Assess
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect(String((result as PromiseRejectedResult).reason)).toMatch(/Invalid schedule name/);
    }
    await expect(
      scheduler.schedule({ name: `A-z_0.9${'x'.repeat(57)}`, at: Date.UTC(2026, 0, 1), messageBody: 'x' }),
    ).resolves.toBeUndefined();
    expect(schedulerMock.commandCalls(CreateScheduleCommand)).toHaveLength(1);
  });

  it('maps throttling to a retryable SERVICE_UNAVAILABLE and rethrows other failures', async () => {
    // Prepare
    const invalid = new ValidationException({ Message: 'bad role', message: 'bad role', $metadata: {} });
    schedulerMock
      .on(CreateScheduleCommand)
      .rejectsOnce(new ThrottlingException({ Message: 'Rate exceeded', message: 'Rate exceeded', $metadata: {} }))
      .rejectsOnce(invalid);

    // Act
    const throttled = scheduler.schedule({ name: NAME, at: Date.UTC(2026, 0, 1), messageBody: 'x' });
    const refused = scheduler.schedule({ name: NAME, at: Date.UTC(2026, 0, 1), messageBody: 'x' });

    // Assess
    await expect(throttled).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(refused).rejects.toBe(invalid);
  });
});
