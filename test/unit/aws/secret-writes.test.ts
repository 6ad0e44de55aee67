import { describe, expect, it, vi } from 'vitest';
import { toAwsError } from '../../../shared/aws/aws-errors.ts';
import type { SecretLookup } from '../../../shared/aws/secret-lookup.ts';
import { markedForDeletion } from '../../../shared/aws/secret-lookup.ts';
import { makeSecretWrites, valueOf } from '../../../shared/aws/secret-writes.ts';
import { ReviewRequiredError } from '../../../shared/platform/errors.ts';
import { parseInput } from '../../../shared/platform/http/validation.ts';
import type { SecretMetadata, SecretRecord, WriteAnswer } from '../../../shared/secrets/index.ts';
import { SecretExistsError } from '../../../shared/secrets/index.ts';
import { derivedVersionId, LOCAL_PLACE, secretArn } from '../../../shared/secrets/secret-names.ts';
import { principal } from '../support/fakes.ts';

/**
 * The AWS API's writes (shared/aws/secret-writes.ts) over stand-ins for the secrets services and the lookup: what
 * each operation asks of the services, the limits of its input (at the limit and one past), and the refusals it
 * decides itself, each as the AWS error type a client sees (the handler parses with `parseInput` and maps any
 * error with `toAwsError`, as here).
 */

const TOKEN = 'a'.repeat(32);
const OWN_KEY = 'alias/aws/secretsmanager';

const record = (overrides: Partial<SecretRecord> = {}): SecretRecord => ({
  id: 'sec_01',
  key: 'DB_URL',
  projectId: 'proj_01',
  projectSlug: 'app',
  environmentId: 'env_01',
  envSlug: 'prod',
  currentVersion: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  ...overrides,
});

const LIVE = record();
const DELETED = { ...record({ id: 'sec_02', key: 'OLD' }), deletedAt: '2026-01-03T00:00:00.000Z', purgeAt: '2026-02-02T00:00:00.000Z' };

/** The operations over fake services: `live` is the secret every lookup finds (`deleted` for a deleted one). */
function writes(found: { live?: SecretRecord; deleted?: typeof DELETED } = { live: LIVE }) {
  const answer = (secret: SecretRecord, version: number, versionId: string | null = null): WriteAnswer => ({
    id: secret.id,
    key: secret.key,
    version,
    versionId,
    secret: { ...secret, currentVersion: version },
  });
  const metadata: { changed: SecretMetadata; described: Record<string, unknown> }[] = [];
  const secrets = {
    writeAtPath: vi.fn(async (_p: unknown, path: { key: string }, value: unknown, options: { versionId?: string }) =>
      answer(record({ key: path.key }), value === null ? 0 : 1, options.versionId ?? null),
    ),
    writeExisting: vi.fn(async (_p: unknown, secret: SecretRecord, _value: unknown, options: { versionId?: string }) =>
      answer(secret, secret.currentVersion + 1, options.versionId ?? null),
    ),
    updateMetadata: vi.fn(
      async (_p: unknown, _id: string, change: (s: SecretRecord) => SecretMetadata, describe: (s: SecretRecord) => object) => {
        const current = found.live!;
        const changed = change(current);
        metadata.push({ changed, described: describe(current) as Record<string, unknown> });
        return { ...current, ...changed } as SecretRecord;
      },
    ),
    delete: vi.fn(async () => ({ purgeAt: '2026-02-01T00:00:00.000Z' })),
    mayWriteValue: vi.fn(async () => undefined),
  };
  const deletedSecrets = { restore: vi.fn(async () => undefined) };
  const lookup = {
    anySecret: vi.fn(async () => (found.live ? { live: found.live } : { deleted: found.deleted! })),
    liveSecret: vi.fn(async () => {
      if (!found.live) throw markedForDeletion();
      return found.live;
    }),
  };
  const operations = makeSecretWrites(secrets as never, deletedSecrets as never, lookup as unknown as SecretLookup, LOCAL_PLACE, [OWN_KEY]);
  /** Runs one operation as the handler does; answers its body, or the AWS error type it was refused with. */
  const send = async (operation: string, body: Record<string, unknown>) => {
    const chosen = operations[operation]!;
    try {
      return (await chosen.handle(principal(), parseInput(chosen.input, body), {} as never)) as Record<string, unknown>;
    } catch (error) {
      const aws = toAwsError(error);
      return { refused: aws.type, message: aws.message };
    }
  };
  return { send, secrets, deletedSecrets, lookup, metadata };
}

const refusal = (type: string) => expect.objectContaining({ refused: type });
const tags = (n: number, prefix = 'k') => Array.from({ length: n }, (_, i) => ({ Key: `${prefix}${i}`, Value: `v${i}` }));

describe('valueOf: the value a write carries', () => {
  it('is the SecretString as text, null for neither, and InvalidParameterException for both', () => {
    // Act
    const text = valueOf({ SecretString: '' });
    const none = valueOf({});

    // Assess
    expect(text).toEqual({ value: '', field: 'SecretString' });
    expect(none).toBeNull();
    expect(() => valueOf({ SecretString: 'a', SecretBinary: 'QQ==' })).toThrow(
      expect.objectContaining({ type: 'InvalidParameterException' }),
    );
  });

  it('keeps a SecretBinary as canonical base64 text, 1 to 65,536 bytes', () => {
    // Prepare
    const largest = Buffer.alloc(65_536, 1).toString('base64');
    const onePast = Buffer.alloc(65_537, 1).toString('base64');

    // Act
    const unpadded = valueOf({ SecretBinary: 'QQ' });
    const atLimit = valueOf({ SecretBinary: largest });

    // Assess
    expect(unpadded).toEqual({ value: 'QQ==', encoding: 'base64' });
    expect(atLimit).toEqual({ value: largest, encoding: 'base64' });
    for (const refused of [onePast, '', '====', 'QQ==$', 'Q Q='])
      expect(() => valueOf({ SecretBinary: refused }), refused.slice(0, 8)).toThrow(/SecretBinary: must be 1 to 65536 bytes/);
  });
});

describe('CreateSecret', () => {
  it('writes at the path its Name gives, as a create that a secret in its recovery window blocks', async () => {
    // Prepare
    const { send, secrets } = writes();

    // Act
    const answer = await send('CreateSecret', {
      Name: 'app/prod/DB_URL',
      ClientRequestToken: TOKEN,
      SecretString: 'v',
      Description: 'the database',
      Tags: [{ Key: 'team', Value: 'core' }],
    });

    // Assess
    expect(secrets.writeAtPath).toHaveBeenCalledWith(
      expect.anything(),
      { projectSlug: 'app', envSlug: 'prod', key: 'DB_URL' },
      { value: 'v', field: 'SecretString' },
      {
        ifMatch: 0,
        mustCreate: true,
        notInRecoveryWindow: true,
        versionId: TOKEN,
        metadata: { description: 'the database', tags: { team: 'core' } },
      },
    );
    expect(answer).toEqual({ ARN: secretArn(LOCAL_PLACE, LIVE), Name: 'app/prod/DB_URL', VersionId: TOKEN });
  });

  it('makes a secret without a value and without a VersionId; an empty Description or Tags is none', async () => {
    // Prepare
    const { send, secrets } = writes();

    // Act
    const answer = await send('CreateSecret', { Name: 'app/prod/DB_URL', Description: '', Tags: [] });

    // Assess
    expect(secrets.writeAtPath.mock.calls[0]![2]).toBeNull();
    expect(secrets.writeAtPath.mock.calls[0]![3]).toMatchObject({ metadata: { description: null, tags: null } });
    expect(answer).toEqual({ ARN: secretArn(LOCAL_PLACE, LIVE), Name: 'app/prod/DB_URL' });
  });

  it('answers the derived VersionId of a version written without a ClientRequestToken', async () => {
    // Prepare
    const { send } = writes();

    // Act
    const answer = await send('CreateSecret', { Name: 'app/prod/DB_URL', SecretString: 'v' });

    // Assess
    expect(answer.VersionId).toBe(derivedVersionId(LIVE.id, 1));
  });

  it('refuses a Name that is not <project>/<env>/<KEY>, or whose key breaks the key rules, writing nothing', async () => {
    // Prepare
    const { send, secrets } = writes();

    // Act
    const answers = await Promise.all(
      ['DB_URL', 'App/prod/DB_URL', 'app/prod/a//b', 'app/prod/bad key', 'app/prod/k/'].map((Name) => send('CreateSecret', { Name })),
    );

    // Assess
    expect(answers).toEqual(Array(5).fill(refusal('InvalidParameterException')));
    expect(answers[0]!.message).toMatch(/^Name: must be <projectSlug>/);
    expect(answers[2]!.message).toMatch(/^Name: its key must not contain "\/\/"/);
    expect(secrets.writeAtPath).not.toHaveBeenCalled();
  });

  it('refuses AddReplicaRegions by name and a KmsKeyId other than its own key, writing nothing', async () => {
    // Prepare
    const { send, secrets } = writes();

    // Act
    const replicas = await send('CreateSecret', { Name: 'app/prod/K', AddReplicaRegions: [{ Region: 'eu-west-1' }] });
    const otherKey = await send('CreateSecret', { Name: 'app/prod/K', KmsKeyId: 'alias/other' });
    const ownKey = await send('CreateSecret', { Name: 'app/prod/K', KmsKeyId: OWN_KEY, AddReplicaRegions: null });

    // Assess
    expect(replicas).toEqual({
      refused: 'InvalidParameterException',
      message: 'AddReplicaRegions: replica regions are not supported by this service.',
    });
    expect(otherKey).toEqual(refusal('InvalidParameterException'));
    expect(ownKey).toHaveProperty('ARN');
    expect(secrets.writeAtPath).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['ClientRequestToken', { ClientRequestToken: 'a'.repeat(32) }, { ClientRequestToken: 'a'.repeat(31) }],
    ['ClientRequestToken', { ClientRequestToken: 'a'.repeat(64) }, { ClientRequestToken: 'a'.repeat(65) }],
    ['ClientRequestToken', { ClientRequestToken: `${'a'.repeat(31)}~` }, { ClientRequestToken: `${'a'.repeat(31)} ` }],
    ['Name', { Name: `${'p'.repeat(505)}/prod/K` }, { Name: `${'p'.repeat(506)}/prod/K` }],
    ['Name', { Name: `app/prod/${'K'.repeat(256)}` }, { Name: `app/prod/${'K'.repeat(257)}` }],
    ['SecretString', { SecretString: 'x'.repeat(65_536) }, { SecretString: 'x'.repeat(65_537) }],
    ['Description', { Description: 'd'.repeat(2048) }, { Description: 'd'.repeat(2049) }],
    ['Tags', { Tags: tags(50) }, { Tags: tags(51) }],
    ['Tags.0.Key', { Tags: [{ Key: 'k'.repeat(128), Value: '' }] }, { Tags: [{ Key: 'k'.repeat(129), Value: '' }] }],
    ['Tags.0.Value', { Tags: [{ Key: 'k', Value: 'v'.repeat(256) }] }, { Tags: [{ Key: 'k', Value: 'v'.repeat(257) }] }],
    ['Tags.0.Key', { Tags: [{ Key: 'a-b_c.d:e/f=g+h@i j', Value: '' }] }, { Tags: [{ Key: 'a#b', Value: '' }] }],
    ['Tags.0.Key', { Tags: [{ Key: 'awsx', Value: '' }] }, { Tags: [{ Key: 'AWS:team', Value: '' }] }],
    ['Tags.0.Value', { Tags: [{ Key: 'k', Value: 'été 1+1=2 @home' }] }, { Tags: [{ Key: 'k', Value: 'a;b' }] }],
    ['Tags.0.Key', { Tags: [{ Key: 'k', Value: '' }] }, { Tags: [{ Key: '', Value: '' }] }],
  ])('takes %s at its limit and refuses it one past (InvalidParameterException)', async (field, within, past) => {
    // Prepare
    const { send } = writes();

    // Act
    const kept = await send('CreateSecret', { Name: 'app/prod/K', ...within });
    const refused = await send('CreateSecret', { Name: 'app/prod/K', ...past });

    // Assess
    expect(kept).toHaveProperty('ARN');
    expect(refused).toEqual(refusal('InvalidParameterException'));
    expect(refused.message).toMatch(new RegExp(`^${field.replaceAll('.', '\\.')}: `));
  });

  it("leaves the service's refusal of a name taken to the error table: ResourceExistsException", async () => {
    // Prepare
    const { send, secrets } = writes();
    secrets.writeAtPath.mockRejectedValueOnce(new SecretExistsError('taken'));

    // Act
    const answer = await send('CreateSecret', { Name: 'app/prod/DB_URL', SecretString: 'v' });

    // Assess
    expect(answer).toEqual(refusal('ResourceExistsException'));
  });
});

describe('PutSecretValue', () => {
  it('writes the next version with its token and stages, and answers the stages it carries', async () => {
    // Prepare
    const { send, secrets } = writes();

    // Act
    const answer = await send('PutSecretValue', {
      SecretId: 'app/prod/DB_URL',
      ClientRequestToken: TOKEN,
      SecretBinary: 'QQ==',
      VersionStages: ['AWSCURRENT', 'blue'],
    });

    // Assess
    expect(secrets.writeExisting).toHaveBeenCalledWith(
      expect.anything(),
      LIVE,
      { value: 'QQ==', encoding: 'base64' },
      {
        versionId: TOKEN,
        stages: ['AWSCURRENT', 'blue'],
      },
    );
    expect(answer).toEqual({ ARN: secretArn(LOCAL_PLACE, LIVE), Name: 'app/prod/DB_URL', VersionId: TOKEN, VersionStages: ['AWSCURRENT'] });
  });

  it('needs a value, and refuses a staging label that breaks the rules or is given twice, before any lookup', async () => {
    // Prepare
    const { send, lookup } = writes();

    // Act
    const noValue = await send('PutSecretValue', { SecretId: 'app/prod/DB_URL' });
    const badLabel = await send('PutSecretValue', { SecretId: 'app/prod/DB_URL', SecretString: 'v', VersionStages: ['a b'] });
    const twice = await send('PutSecretValue', { SecretId: 'app/prod/DB_URL', SecretString: 'v', VersionStages: ['x', 'x'] });

    // Assess
    expect(noValue).toEqual({
      refused: 'InvalidParameterException',
      message: expect.stringMatching(/^SecretString or SecretBinary: one is required/),
    });
    expect(badLabel).toEqual({
      refused: 'InvalidParameterException',
      message: expect.stringMatching(/^VersionStages: a staging label is 1 to 256/),
    });
    expect(twice).toEqual({ refused: 'InvalidParameterException', message: 'VersionStages: a staging label is given twice' });
    expect(lookup.liveSecret).not.toHaveBeenCalled();
  });

  it('takes 20 VersionStages and refuses 21', async () => {
    // Prepare
    const { send } = writes();
    const stages = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);

    // Act
    const kept = await send('PutSecretValue', { SecretId: 'app/prod/DB_URL', SecretString: 'v', VersionStages: stages(20) });
    const refused = await send('PutSecretValue', { SecretId: 'app/prod/DB_URL', SecretString: 'v', VersionStages: stages(21) });

    // Assess
    expect(kept).toHaveProperty('VersionId');
    expect(refused).toEqual({ refused: 'InvalidParameterException', message: 'VersionStages: must be at most 20 items' });
  });
});

describe('UpdateSecret', () => {
  it('changes a Description that differs, then writes the value to the secret as changed', async () => {
    // Prepare
    const { send, secrets, metadata } = writes({ live: record({ description: 'old' }) });

    // Act
    const answer = await send('UpdateSecret', {
      SecretId: 'app/prod/DB_URL',
      Description: 'new',
      SecretString: 'v',
      ClientRequestToken: TOKEN,
    });

    // Assess
    expect(metadata).toEqual([{ changed: { description: 'new' }, described: { changed: 'description' } }]);
    expect(secrets.writeExisting).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ description: 'new' }),
      { value: 'v', field: 'SecretString' },
      {
        versionId: TOKEN,
      },
    );
    expect(answer).toEqual({ ARN: secretArn(LOCAL_PLACE, LIVE), Name: 'app/prod/DB_URL', VersionId: TOKEN });
  });

  it('asks whether the value may be written before it changes the Description: a refused value changes nothing', async () => {
    // Prepare
    const { send, secrets, metadata } = writes({ live: record({ description: 'old' }) });
    secrets.mayWriteValue.mockRejectedValueOnce(new ReviewRequiredError('environment env_01 has a review policy'));
    // Act
    const answer = await send('UpdateSecret', { SecretId: 'app/prod/DB_URL', Description: 'new', SecretString: 'v' });
    // Assess
    expect(answer).toEqual(refusal('AccessDeniedException'));
    expect([metadata, secrets.writeExisting.mock.calls]).toEqual([[], []]);
  });

  it("removes the Description with '', and changes nothing when it is the one the secret has", async () => {
    // Prepare
    const described = writes({ live: record({ description: 'old' }) });
    const bare = writes({ live: record() });

    // Act
    await described.send('UpdateSecret', { SecretId: 'app/prod/DB_URL', Description: '' });
    await described.send('UpdateSecret', { SecretId: 'app/prod/DB_URL', Description: 'old' });
    await bare.send('UpdateSecret', { SecretId: 'app/prod/DB_URL', Description: '' });

    // Assess
    expect(described.metadata.map((m) => m.changed)).toEqual([{ description: null }]);
    expect(bare.secrets.updateMetadata).not.toHaveBeenCalled();
  });

  it('without a value writes no version and answers no VersionId', async () => {
    // Prepare
    const { send, secrets } = writes();

    // Act
    const answer = await send('UpdateSecret', { SecretId: 'app/prod/DB_URL', Description: 'd' });

    // Assess
    expect(secrets.writeExisting).not.toHaveBeenCalled();
    expect(answer).toEqual({ ARN: secretArn(LOCAL_PLACE, LIVE), Name: 'app/prod/DB_URL' });
  });

  it('refuses another KmsKeyId and both SecretString and SecretBinary before any lookup', async () => {
    // Prepare
    const { send, lookup } = writes();

    // Act
    const otherKey = await send('UpdateSecret', { SecretId: 'app/prod/DB_URL', KmsKeyId: 'alias/other', SecretString: 'v' });
    const both = await send('UpdateSecret', { SecretId: 'app/prod/DB_URL', SecretString: 'v', SecretBinary: 'QQ==' });

    // Assess
    expect([otherKey, both]).toEqual([refusal('InvalidParameterException'), refusal('InvalidParameterException')]);
    expect(lookup.liveSecret).not.toHaveBeenCalled();
  });
});

describe('DeleteSecret', () => {
  it('deletes with a 30-day window by default, the window given, or none when forced; answers the DeletionDate', async () => {
    // Prepare
    const { send, secrets } = writes();

    // Act
    const byDefault = await send('DeleteSecret', { SecretId: 'app/prod/DB_URL' });
    await send('DeleteSecret', { SecretId: 'app/prod/DB_URL', RecoveryWindowInDays: 7 });
    await send('DeleteSecret', { SecretId: 'app/prod/DB_URL', RecoveryWindowInDays: 30 });
    await send('DeleteSecret', { SecretId: 'app/prod/DB_URL', ForceDeleteWithoutRecovery: true });

    // Assess
    expect(secrets.delete.mock.calls.map((call) => (call as unknown[])[2])).toEqual([30, 7, 30, 0]);
    expect(byDefault).toEqual({
      ARN: secretArn(LOCAL_PLACE, LIVE),
      Name: 'app/prod/DB_URL',
      DeletionDate: Date.parse('2026-02-01T00:00:00.000Z') / 1000,
    });
  });

  it('refuses a window outside 7 to 30 days, or one given with ForceDeleteWithoutRecovery, deleting nothing', async () => {
    // Prepare
    const { send, secrets } = writes();

    // Act
    const answers = await Promise.all([
      send('DeleteSecret', { SecretId: 'app/prod/DB_URL', RecoveryWindowInDays: 6 }),
      send('DeleteSecret', { SecretId: 'app/prod/DB_URL', RecoveryWindowInDays: 31 }),
      send('DeleteSecret', { SecretId: 'app/prod/DB_URL', RecoveryWindowInDays: 7.5 }),
      send('DeleteSecret', { SecretId: 'app/prod/DB_URL', RecoveryWindowInDays: 7, ForceDeleteWithoutRecovery: true }),
    ]);

    // Assess
    expect(answers).toEqual(Array(4).fill(refusal('InvalidParameterException')));
    expect(answers[3]!.message).toBe("RecoveryWindowInDays: can't be given with ForceDeleteWithoutRecovery.");
    expect(secrets.delete).not.toHaveBeenCalled();
  });

  it('is InvalidRequestException for a secret already in its recovery window', async () => {
    // Prepare
    const { send, secrets } = writes({ deleted: DELETED });

    // Act
    const answer = await send('DeleteSecret', { SecretId: 'app/prod/OLD' });

    // Assess
    expect(answer).toEqual({ refused: 'InvalidRequestException', message: markedForDeletion().message });
    expect(secrets.delete).not.toHaveBeenCalled();
  });
});

describe('RestoreSecret', () => {
  it('restores a secret in its recovery window and answers its names', async () => {
    // Prepare
    const { send, deletedSecrets } = writes({ deleted: DELETED });

    // Act
    const answer = await send('RestoreSecret', { SecretId: 'app/prod/OLD' });

    // Assess
    expect(deletedSecrets.restore).toHaveBeenCalledWith(expect.anything(), 'sec_02');
    expect(answer).toEqual({ ARN: secretArn(LOCAL_PLACE, DELETED), Name: 'app/prod/OLD' });
  });

  it('is InvalidRequestException for a live secret, restoring nothing', async () => {
    // Prepare
    const { send, deletedSecrets } = writes();

    // Act
    const answer = await send('RestoreSecret', { SecretId: 'app/prod/DB_URL' });

    // Assess
    expect(answer).toEqual({ refused: 'InvalidRequestException', message: 'The secret is not scheduled for deletion.' });
    expect(deletedSecrets.restore).not.toHaveBeenCalled();
  });
});

describe('TagResource and UntagResource', () => {
  it('adds tags over the ones the secret has (a key given again takes the new value), naming the keys changed', async () => {
    // Prepare
    const { send, metadata } = writes({ live: record({ tags: { team: 'core', tier: '1' } }) });

    // Act
    const answer = await send('TagResource', {
      SecretId: 'app/prod/DB_URL',
      Tags: [
        { Key: 'tier', Value: '2' },
        { Key: 'env', Value: 'prod' },
      ],
    });

    // Assess
    expect(answer).toEqual({});
    expect(metadata).toEqual([
      { changed: { tags: { team: 'core', tier: '2', env: 'prod' } }, described: { changed: 'tags', tagKeys: ['tier', 'env'] } },
    ]);
  });

  it('keeps a secret at 50 tags: the tag that would be its 51st is InvalidParameterException', async () => {
    // Prepare
    const full = writes({ live: record({ tags: Object.fromEntries(tags(49).map((t) => [t.Key, t.Value])) }) });

    // Act
    const fiftieth = await full.send('TagResource', { SecretId: 'app/prod/DB_URL', Tags: [{ Key: 'new1', Value: '' }] });
    const fiftyFirst = await full.send('TagResource', {
      SecretId: 'app/prod/DB_URL',
      Tags: [
        { Key: 'new1', Value: '' },
        { Key: 'new2', Value: '' },
      ],
    });

    // Assess
    expect(fiftieth).toEqual({});
    expect(fiftyFirst).toEqual({ refused: 'InvalidParameterException', message: 'Tags: a secret has at most 50 tags.' });
  });

  it('removes the keys named; a secret left without tags has none (null), and a key it lacks is no error', async () => {
    // Prepare
    const { send, metadata } = writes({ live: record({ tags: { team: 'core', tier: '1' } }) });
    const bare = writes({ live: record() });

    // Act
    await send('UntagResource', { SecretId: 'app/prod/DB_URL', TagKeys: ['tier', 'absent'] });
    await send('UntagResource', { SecretId: 'app/prod/DB_URL', TagKeys: ['team', 'tier'] });
    await bare.send('UntagResource', { SecretId: 'app/prod/DB_URL', TagKeys: ['team'] });

    // Assess
    expect(metadata.map((m) => m.changed)).toEqual([{ tags: { team: 'core' } }, { tags: null }]);
    expect(metadata[0]!.described).toEqual({ changed: 'tags', tagKeys: ['tier', 'absent'] });
    expect(bare.metadata.map((m) => m.changed)).toEqual([{ tags: null }]);
  });

  it('takes 50 TagKeys and refuses 51', async () => {
    // Prepare
    const { send } = writes();
    const keys = (n: number) => tags(n).map((t) => t.Key);

    // Act
    const kept = await send('UntagResource', { SecretId: 'app/prod/DB_URL', TagKeys: keys(50) });
    const refused = await send('UntagResource', { SecretId: 'app/prod/DB_URL', TagKeys: keys(51) });

    // Assess
    expect(kept).toEqual({});
    expect(refused).toEqual({ refused: 'InvalidParameterException', message: 'TagKeys: must be at most 50 items' });
  });

  it('are InvalidRequestException for a secret in its recovery window, changing nothing', async () => {
    // Prepare
    const { send, secrets } = writes({ deleted: DELETED });

    // Act
    const tagged = await send('TagResource', { SecretId: 'app/prod/OLD', Tags: [{ Key: 'k', Value: 'v' }] });
    const untagged = await send('UntagResource', { SecretId: 'app/prod/OLD', TagKeys: ['k'] });

    // Assess
    expect([tagged, untagged]).toEqual([refusal('InvalidRequestException'), refusal('InvalidRequestException')]);
    expect(secrets.updateMetadata).not.toHaveBeenCalled();
  });
});
