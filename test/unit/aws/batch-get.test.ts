import { describe, expect, it, vi } from 'vitest';
import { toAwsError } from '../../../shared/aws/aws-errors.ts';
import { makeBatchGetSecretValue } from '../../../shared/aws/batch-get.ts';
import { ForbiddenError, NotFoundError, ServiceUnavailableError, ValidationError } from '../../../shared/platform/errors.ts';
import { parseInput } from '../../../shared/platform/http/validation.ts';
import type { SecretRecord } from '../../../shared/secrets/index.ts';
import { derivedVersionId, LOCAL_PLACE, secretArn } from '../../../shared/secrets/secret-names.ts';
import { principal } from '../support/fakes.ts';

/**
 * BatchGetSecretValue (shared/aws/batch-get.ts) over a stand-in for the secrets service's batched reveal and search:
 * what it asks for (each SecretId once, by name or ARN, or a page of a search), how each result is answered (a value
 * or an `Errors` item), the limits of its input, and the failures that are the whole call's.
 */

const secret = (id: string, key: string, overrides: Partial<SecretRecord> = {}): SecretRecord => ({
  id,
  key,
  projectId: 'proj_01',
  projectSlug: 'app',
  environmentId: 'env_01',
  envSlug: 'prod',
  currentVersion: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  ...overrides,
});

const DB = secret('sec_db', 'DB_URL');
const BLOB = secret('sec_blob', 'CERT', { encoding: 'base64' });
const STORED = [DB, BLOB];

type Wanted = { paths: readonly string[]; accepts: (s: SecretRecord) => boolean };

/** The operation over a reveal that answers the stored secrets (NOT_FOUND otherwise, or the error `failing` names). */
function batchGet(failing: Record<string, Error> = {}, page = { items: STORED, nextCursor: null as string | null }) {
  const revealBatch = vi.fn(async (_p: unknown, wanted: readonly Wanted[]) =>
    wanted.map((one) => {
      const failure = one.paths.map((path) => failing[path]).find(Boolean);
      if (failure) return { error: failure };
      const found = STORED.find((s) => one.paths.includes(`app/prod/${s.key}`) && one.accepts(s));
      if (!found) return { error: new NotFoundError('no such secret') };
      const value = found.encoding ? 'QQ==' : `value of ${found.key}`;
      return { value, encoding: found.encoding, version: found.currentVersion, versionCreatedAt: found.updatedAt, secret: found };
    }),
  );
  const search = vi.fn(async () => page);
  const operation = makeBatchGetSecretValue({ revealBatch, search } as never, LOCAL_PLACE);
  const send = async (body: Record<string, unknown>) => {
    try {
      return (await operation.handle(principal(), parseInput(operation.input, body), {} as never)) as Record<string, unknown>;
    } catch (error) {
      const aws = toAwsError(error);
      return { refused: aws.type, message: aws.message };
    }
  };
  return { send, revealBatch, search };
}

describe('BatchGetSecretValue by SecretIdList', () => {
  it('answers each value as GetSecretValue would, SecretBinary for a binary one', async () => {
    // Prepare
    const { send } = batchGet();

    // Act
    const answer = await send({ SecretIdList: ['app/prod/DB_URL', secretArn(LOCAL_PLACE, BLOB)] });

    // Assess
    expect(answer).toEqual({
      SecretValues: [
        {
          ARN: secretArn(LOCAL_PLACE, DB),
          Name: 'app/prod/DB_URL',
          VersionId: derivedVersionId('sec_db', 2),
          SecretString: 'value of DB_URL',
          VersionStages: ['AWSCURRENT'],
          CreatedDate: Date.parse(DB.updatedAt) / 1000,
        },
        expect.objectContaining({ Name: 'app/prod/CERT', SecretBinary: 'QQ==' }),
      ],
      Errors: [],
    });
  });

  it('asks for each SecretId once, and answers what it cannot read as an Errors item naming the SecretId', async () => {
    // Prepare
    const { send, revealBatch } = batchGet();
    const otherSuffix = `${secretArn(LOCAL_PLACE, DB).slice(0, -6)}${secretArn(LOCAL_PLACE, BLOB).slice(-6)}`;

    // Act
    const answer = await send({ SecretIdList: ['app/prod/DB_URL', 'app/prod/DB_URL', 'app/prod/NOPE', otherSuffix] });

    // Assess
    expect(revealBatch.mock.calls[0]![1]).toHaveLength(3);
    expect(answer.SecretValues).toHaveLength(1);
    expect(answer.Errors).toEqual([
      { SecretId: 'app/prod/NOPE', ErrorCode: 'ResourceNotFoundException', Message: 'no such secret' },
      { SecretId: otherSuffix, ErrorCode: 'ResourceNotFoundException', Message: 'no such secret' },
    ]);
  });

  it("answers a refusal of one secret as its Errors item, but fails the whole call on a failure of the service's", async () => {
    // Prepare
    const refused = batchGet({ 'app/prod/DB_URL': new ForbiddenError('This credential may not reveal DB_URL in app/prod') });
    const broken = batchGet({ 'app/prod/DB_URL': new ServiceUnavailableError('table unavailable') });

    // Act
    const oneRefused = await refused.send({ SecretIdList: ['app/prod/DB_URL', 'app/prod/CERT'] });
    const whole = await broken.send({ SecretIdList: ['app/prod/DB_URL', 'app/prod/CERT'] });

    // Assess
    expect(oneRefused.Errors).toEqual([
      { SecretId: 'app/prod/DB_URL', ErrorCode: 'AccessDeniedException', Message: 'This credential may not reveal DB_URL in app/prod' },
    ]);
    expect(oneRefused.SecretValues).toHaveLength(1);
    expect(whole).toEqual({ refused: 'InternalServiceError', message: 'table unavailable' });
  });

  it('takes 1 to 20 SecretIds, and refuses MaxResults or NextToken beside them', async () => {
    // Prepare
    const { send, revealBatch } = batchGet();
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `app/prod/K${i}`);

    // Act
    const twenty = await send({ SecretIdList: ids(20) });
    const answers = await Promise.all([
      send({ SecretIdList: ids(21) }),
      send({ SecretIdList: [] }),
      send({ SecretIdList: ids(1), MaxResults: 5 }),
      send({ SecretIdList: ids(1), NextToken: 'abc' }),
    ]);

    // Assess
    expect(twenty.Errors).toHaveLength(20);
    expect(answers.map((a) => a.refused)).toEqual(Array(4).fill('InvalidParameterException'));
    expect(answers[2]!.message).toBe('MaxResults and NextToken: only with Filters.');
    expect(revealBatch).toHaveBeenCalledTimes(1);
  });

  it('needs exactly one of SecretIdList and Filters', async () => {
    // Prepare
    const { send } = batchGet();

    // Act
    const neither = await send({});
    const both = await send({ SecretIdList: ['app/prod/DB_URL'], Filters: [{ Key: 'name', Values: ['app'] }] });

    // Assess
    expect([neither, both]).toEqual(
      Array(2).fill({ refused: 'InvalidParameterException', message: 'SecretIdList or Filters: give exactly one of them.' }),
    );
  });
});

describe('BatchGetSecretValue by Filters', () => {
  it('reveals a page of the search (20 by default, or MaxResults) and answers its NextToken', async () => {
    // Prepare
    const { send, search, revealBatch } = batchGet({}, { items: STORED, nextCursor: 'next-page' });

    // Act
    const byDefault = await send({ Filters: [{ Key: 'name', Values: ['app/'] }] });
    await send({ Filters: [{ Key: 'name', Values: ['app/'] }], MaxResults: 5, NextToken: 'this-page' });

    // Assess
    expect(search.mock.calls.map((call) => (call as unknown[])[2])).toEqual([
      { limit: 20, cursor: undefined },
      { limit: 5, cursor: 'this-page' },
    ]);
    expect((revealBatch.mock.calls[0]![1] as (Wanted & { id: string })[]).map((one) => one.id)).toEqual(
      STORED.map((s) => secretArn(LOCAL_PLACE, s)),
    );
    expect(byDefault).toMatchObject({ NextToken: 'next-page', Errors: [] });
    expect(byDefault.SecretValues).toHaveLength(2);
  });

  it('answers no NextToken on the last page, and InvalidNextTokenException for a bad one', async () => {
    // Prepare
    const last = batchGet();
    const bad = batchGet();
    bad.search.mockRejectedValueOnce(new ValidationError('cursor: not a cursor'));

    // Act
    const lastPage = await last.send({ Filters: [{ Key: 'name', Values: ['app/'] }] });
    const badToken = await bad.send({ Filters: [{ Key: 'name', Values: ['app/'] }], NextToken: 'forged' });

    // Assess
    expect(lastPage).not.toHaveProperty('NextToken');
    expect(badToken).toEqual({ refused: 'InvalidNextTokenException', message: 'The NextToken value is invalid.' });
  });

  it('takes MaxResults 1 to 20', async () => {
    // Prepare
    const { send } = batchGet();
    const filters = [{ Key: 'name', Values: ['app/'] }];

    // Act
    const answers = await Promise.all([0, 1, 20, 21].map((MaxResults) => send({ Filters: filters, MaxResults })));

    // Assess
    expect(answers.map((a) => a.refused ?? 'answered')).toEqual([
      'InvalidParameterException',
      'answered',
      'answered',
      'InvalidParameterException',
    ]);
  });
});
