import { describe, expect, it, vi } from 'vitest';
import { toAwsError } from '../../../shared/aws/aws-errors.ts';
import { describedRotation, makeRotationOperations } from '../../../shared/aws/rotation-operations.ts';
import type { SecretLookup } from '../../../shared/aws/secret-lookup.ts';
import { parseInput } from '../../../shared/platform/http/validation.ts';
import type { StoredRotation } from '../../../shared/rotation/index.ts';
import type { SecretRecord } from '../../../shared/secrets/index.ts';
import { LOCAL_PLACE, secretArn } from '../../../shared/secrets/secret-names.ts';
import { principal } from '../support/fakes.ts';

/**
 * RotateSecret, CancelRotateSecret and DescribeSecret's rotation fields (shared/aws/rotation-operations.ts) over a
 * stand-in for the rotation service: when a RotateSecret configures and when it only starts, the schedule AWS's
 * rules give, the limits of its input, and how a stored rotation is described.
 */

const TOKEN = 'c'.repeat(32);
const FUNCTION = 'arn:aws:lambda:us-east-1:000000000000:function:rotate-db';
const OTHER_FUNCTION = 'arn:aws:lambda:us-east-1:000000000000:function:rotate-other';

const SECRET: SecretRecord = {
  id: 'sec_01',
  key: 'DB_URL',
  projectId: 'proj_01',
  projectSlug: 'app',
  environmentId: 'env_01',
  envSlug: 'prod',
  currentVersion: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const rotation = (overrides: Partial<StoredRotation> = {}): StoredRotation => ({
  secretId: SECRET.id,
  accountId: 'acc_test',
  enabled: true,
  functionArn: FUNCTION,
  schedule: 'rate(30 days)',
  rules: { AutomaticallyAfterDays: 30 },
  duration: null,
  generator: null,
  configuredAt: '2026-01-01T00:00:00.000Z',
  lastRotatedAt: null,
  nextRotationAt: null,
  lease: null,
  ...overrides,
});

/** The operations over a rotation service whose secret has `existing` as its rotation record. */
function operations(existing?: StoredRotation) {
  const rotations = {
    rotationRecord: vi.fn(async () => existing),
    configureRotation: vi.fn(async () => undefined),
    startRotation: vi.fn(async (_p: unknown, _id: string, token?: string) => ({ versionId: token ?? 'generated-token' })),
    cancelRotation: vi.fn(async () => undefined),
  };
  const lookup = { liveSecret: vi.fn(async () => SECRET) } as unknown as SecretLookup;
  const made = makeRotationOperations(rotations as never, lookup, LOCAL_PLACE);
  const send = async (operation: string, body: Record<string, unknown>) => {
    const chosen = made[operation]!;
    try {
      return (await chosen.handle(principal(), parseInput(chosen.input, { SecretId: 'app/prod/DB_URL', ...body }), {} as never)) as Record<
        string,
        unknown
      >;
    } catch (error) {
      const aws = toAwsError(error);
      return { refused: aws.type, message: aws.message };
    }
  };
  return { send, rotations };
}

const NAMED = { ARN: secretArn(LOCAL_PLACE, SECRET), Name: 'app/prod/DB_URL' };

describe('RotateSecret', () => {
  it('configures a first rotation with what it is given, then starts one under the ClientRequestToken', async () => {
    // Prepare
    const { send, rotations } = operations();

    // Act
    const answer = await send('RotateSecret', {
      ClientRequestToken: TOKEN,
      RotationLambdaARN: FUNCTION,
      RotationRules: { AutomaticallyAfterDays: 7, Duration: '2h' },
    });

    // Assess
    expect(rotations.configureRotation).toHaveBeenCalledWith(expect.anything(), SECRET.id, {
      functionArn: FUNCTION,
      schedule: 'rate(7 days)',
      rules: { AutomaticallyAfterDays: 7, Duration: '2h' },
      duration: '2h',
      generator: null,
    });
    expect(rotations.startRotation).toHaveBeenCalledWith(expect.anything(), SECRET.id, TOKEN);
    expect(answer).toEqual({ ...NAMED, VersionId: TOKEN });
  });

  it('turns AutomaticallyAfterDays into a rate (1 day, N days) and keeps a ScheduleExpression as given', async () => {
    // Prepare
    const { send, rotations } = operations();

    // Act
    await send('RotateSecret', { RotationRules: { AutomaticallyAfterDays: 1 } });
    await send('RotateSecret', { RotationRules: { AutomaticallyAfterDays: 1000 } });
    await send('RotateSecret', { RotationRules: { ScheduleExpression: 'cron(0 12 * * ? *)' } });

    // Assess
    expect(rotations.configureRotation.mock.calls.map((call) => (call as unknown[])[2])).toEqual([
      expect.objectContaining({ schedule: 'rate(1 day)', functionArn: null }),
      expect.objectContaining({ schedule: 'rate(1000 days)' }),
      expect.objectContaining({ schedule: 'cron(0 12 * * ? *)', duration: null }),
    ]);
  });

  it('only starts a rotation that is on when given neither a function nor rules', async () => {
    // Prepare
    const { send, rotations } = operations(rotation());

    // Act
    const answer = await send('RotateSecret', {});

    // Assess
    expect(rotations.configureRotation).not.toHaveBeenCalled();
    expect(answer).toEqual({ ...NAMED, VersionId: 'generated-token' });
  });

  it('changes the function of a rotation that is on, keeping its rules; keeps the function and generator when given rules', async () => {
    // Prepare
    const generator = { PasswordLength: 40 } as never;
    const { send, rotations } = operations(rotation({ generator }));

    // Act
    await send('RotateSecret', { RotationLambdaARN: OTHER_FUNCTION });
    await send('RotateSecret', { RotationRules: { AutomaticallyAfterDays: 2 } });

    // Assess
    expect(rotations.configureRotation.mock.calls.map((call) => (call as unknown[])[2])).toEqual([
      { functionArn: OTHER_FUNCTION, schedule: 'rate(30 days)', rules: { AutomaticallyAfterDays: 30 }, duration: null, generator },
      { functionArn: FUNCTION, schedule: 'rate(2 days)', rules: { AutomaticallyAfterDays: 2 }, duration: null, generator },
    ]);
  });

  it('needs rules for a rotation that is off or was never configured: old rules are not reused, nothing starts', async () => {
    // Prepare
    const off = operations(rotation({ enabled: false }));
    const never = operations();

    // Act
    const answers = [
      await off.send('RotateSecret', { RotationLambdaARN: FUNCTION }),
      await off.send('RotateSecret', {}),
      await never.send('RotateSecret', {}),
    ];

    // Assess
    expect(answers).toEqual(
      Array(3).fill({
        refused: 'InvalidParameterException',
        message: 'RotationRules: AutomaticallyAfterDays or ScheduleExpression is required.',
      }),
    );
    expect(off.rotations.startRotation).not.toHaveBeenCalled();
    expect(never.rotations.startRotation).not.toHaveBeenCalled();
  });

  it('refuses AutomaticallyAfterDays and ScheduleExpression together', async () => {
    // Prepare
    const { send, rotations } = operations();

    // Act
    const answer = await send('RotateSecret', { RotationRules: { AutomaticallyAfterDays: 2, ScheduleExpression: 'rate(2 days)' } });

    // Assess
    expect(answer).toEqual({
      refused: 'InvalidParameterException',
      message: 'RotationRules: give AutomaticallyAfterDays or ScheduleExpression, not both.',
    });
    expect(rotations.configureRotation).not.toHaveBeenCalled();
  });

  it('configures without starting when RotateImmediately is false, and answers no VersionId', async () => {
    // Prepare
    const { send, rotations } = operations();

    // Act
    const answer = await send('RotateSecret', { RotationRules: { AutomaticallyAfterDays: 7 }, RotateImmediately: false });

    // Assess
    expect(rotations.configureRotation).toHaveBeenCalledTimes(1);
    expect(rotations.startRotation).not.toHaveBeenCalled();
    expect(answer).toEqual(NAMED);
  });

  it.each([
    ['AutomaticallyAfterDays', { RotationRules: { AutomaticallyAfterDays: 0 } }],
    ['AutomaticallyAfterDays', { RotationRules: { AutomaticallyAfterDays: 1001 } }],
    ['Duration', { RotationRules: { AutomaticallyAfterDays: 1, Duration: '1' } }],
    ['Duration', { RotationRules: { AutomaticallyAfterDays: 1, Duration: '24hh' } }],
    ['RotationLambdaARN', { RotationLambdaARN: 'arn:aws:iam::000000000000:role/rotate' }],
    ['ClientRequestToken', { ClientRequestToken: 'c'.repeat(31) }],
  ])('refuses %s out of its bounds (InvalidParameterException)', async (field, body) => {
    // Prepare
    const { send } = operations();

    // Act
    const answer = await send('RotateSecret', body);

    // Assess
    expect(answer).toEqual({ refused: 'InvalidParameterException', message: expect.stringContaining(`${field}: `) });
  });
});

describe('CancelRotateSecret', () => {
  it("cancels the secret's rotation and answers its names", async () => {
    // Prepare
    const { send, rotations } = operations(rotation());

    // Act
    const answer = await send('CancelRotateSecret', {});

    // Assess
    expect(rotations.cancelRotation).toHaveBeenCalledWith(expect.anything(), SECRET.id);
    expect(answer).toEqual(NAMED);
  });
});

describe('describedRotation', () => {
  it('is RotationEnabled false alone for a secret never configured', () => {
    // Act, Assess
    expect(describedRotation(undefined)).toEqual({ RotationEnabled: false });
  });

  it('shows the function, rules, and dates in whole epoch seconds; no next date once rotation is off', () => {
    // Prepare
    const dates = { lastRotatedAt: '2026-01-05T00:00:00.900Z', nextRotationAt: '2026-02-04T00:00:00.000Z' };

    // Act
    const on = describedRotation(rotation(dates));
    const off = describedRotation(rotation({ ...dates, enabled: false, functionArn: null }));
    const neverRotated = describedRotation(rotation());

    // Assess
    expect(on).toEqual({
      RotationEnabled: true,
      RotationLambdaARN: FUNCTION,
      RotationRules: { AutomaticallyAfterDays: 30 },
      LastRotatedDate: Date.parse('2026-01-05T00:00:00.000Z') / 1000,
      NextRotationDate: Date.parse(dates.nextRotationAt) / 1000,
    });
    expect(off).toEqual({
      RotationEnabled: false,
      RotationRules: { AutomaticallyAfterDays: 30 },
      LastRotatedDate: Date.parse('2026-01-05T00:00:00.000Z') / 1000,
    });
    expect(neverRotated).toEqual({ RotationEnabled: true, RotationLambdaARN: FUNCTION, RotationRules: { AutomaticallyAfterDays: 30 } });
  });
});
