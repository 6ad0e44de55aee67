import { describe, expect, it, vi } from 'vitest';
import { AwsError } from '../../../shared/aws/aws-errors.ts';
import { makeSecretLookup, withNextToken } from '../../../shared/aws/secret-lookup.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../shared/platform/errors.ts';
import type { SecretRecord } from '../../../shared/secrets/index.ts';
import { LOCAL_PLACE, secretArn } from '../../../shared/secrets/secret-names.ts';
import { principal } from '../support/fakes.ts';

/**
 * How the AWS API finds the secret a SecretId names (shared/aws/secret-lookup.ts), over stand-ins for the services'
 * reads by path: a live secret, else one in its recovery window, by name or ARN (whose suffix must be the secret's),
 * and the AWS error each miss is.
 */

const secret = (id: string, key: string): SecretRecord => ({
  id,
  key,
  projectId: 'proj_01',
  projectSlug: 'app',
  environmentId: 'env_01',
  envSlug: 'prod',
  currentVersion: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const LIVE = secret('sec_live', 'DB_URL');
const GONE = { ...secret('sec_gone', 'OLD'), deletedAt: '2026-01-02T00:00:00.000Z', purgeAt: '2026-02-01T00:00:00.000Z' };

/** Reads by path from two tables (live and deleted); anything else is NOT_FOUND, as the services answer. */
function lookup(
  live: Record<string, SecretRecord> = { 'app/prod/DB_URL': LIVE },
  deleted: Record<string, typeof GONE> = { 'app/prod/OLD': GONE },
) {
  const readLive = vi.fn(async (_p: unknown, path: string) => {
    const found = live[path];
    if (!found) throw new NotFoundError('no such secret');
    return found;
  });
  const readDeleted = vi.fn(async (_p: unknown, path: string) => {
    const found = deleted[path];
    if (!found) throw new NotFoundError('no such secret');
    return found;
  });
  const made = makeSecretLookup({ readByPath: readLive } as never, { readByPath: readDeleted } as never, LOCAL_PLACE);
  return { ...made, readLive, readDeleted };
}

const typeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'found',
    (error: unknown) => (error instanceof AwsError ? error.type : (error as Error).constructor.name),
  );

describe('anySecret', () => {
  it('finds a live secret with one read, by name or by ARN', async () => {
    // Prepare
    const { anySecret, readLive, readDeleted } = lookup();

    // Act
    const byName = await anySecret(principal(), 'app/prod/DB_URL');
    const byArn = await anySecret(principal(), secretArn(LOCAL_PLACE, LIVE));

    // Assess
    expect(byName).toEqual({ live: LIVE });
    expect(byArn).toEqual({ live: LIVE });
    expect(readLive).toHaveBeenCalledTimes(2);
    expect(readDeleted).not.toHaveBeenCalled();
  });

  it('finds a secret in its recovery window when no live one has the name', async () => {
    // Prepare
    const { anySecret } = lookup();

    // Act
    const found = await anySecret(principal(), 'app/prod/OLD');

    // Assess
    expect(found).toEqual({ deleted: GONE });
  });

  it("is ResourceNotFoundException for an ARN whose suffix is another secret's, or of another account", async () => {
    // Prepare
    const { anySecret } = lookup();
    const otherSuffix = `${secretArn(LOCAL_PLACE, LIVE).slice(0, -6)}${secretArn(LOCAL_PLACE, GONE).slice(-6)}`;

    // Act
    const answers = await Promise.all([
      typeOf(anySecret(principal(), otherSuffix)),
      typeOf(anySecret(principal(), secretArn({ ...LOCAL_PLACE, account: '123456789012' }, LIVE))),
      typeOf(anySecret(principal(), 'app/prod/NOTHING')),
    ]);

    // Assess
    expect(answers).toEqual(Array(3).fill('ResourceNotFoundException'));
  });

  it('lets an error other than not found through, without looking among the deleted', async () => {
    // Prepare
    const { anySecret, readLive, readDeleted } = lookup();
    readLive.mockRejectedValueOnce(new ForbiddenError('no'));

    // Act
    const answer = await typeOf(anySecret(principal(), 'app/prod/DB_URL'));

    // Assess
    expect(answer).toBe('ForbiddenError');
    expect(readDeleted).not.toHaveBeenCalled();
  });
});

describe('liveSecret and missed', () => {
  it('liveSecret answers the live secret, and InvalidRequestException for one marked for deletion', async () => {
    // Prepare
    const { liveSecret } = lookup();

    // Act
    const live = await liveSecret(principal(), 'app/prod/DB_URL');
    const gone = await liveSecret(principal(), 'app/prod/OLD').catch((error: AwsError) => error);

    // Assess
    expect(live).toBe(LIVE);
    expect(gone).toMatchObject({ type: 'InvalidRequestException', message: expect.stringMatching(/marked for deletion/) });
  });

  it('missed: InvalidRequestException for a deleted secret, the original miss otherwise, any other error as it is', async () => {
    // Prepare
    const { missed } = lookup();
    const notFound = new AwsError('ResourceNotFoundException', 'x');
    const throttled = new AwsError('ThrottlingException', 'slow');

    // Act
    const deleted = await typeOf(missed(principal(), 'app/prod/OLD', notFound));
    const absent = await missed(principal(), 'app/prod/NOTHING', notFound).catch((error: unknown) => error);
    const other = await missed(principal(), 'app/prod/OLD', throttled).catch((error: unknown) => error);

    // Assess
    expect(deleted).toBe('InvalidRequestException');
    expect(absent).toMatchObject({ type: 'ResourceNotFoundException' });
    expect(other).toBe(throttled);
  });
});

describe('withNextToken', () => {
  it('turns a bad cursor into InvalidNextTokenException and lets any other error through', async () => {
    // Act
    const badCursor = await typeOf(withNextToken(async () => Promise.reject(new ValidationError('cursor: not a cursor'))));
    const otherValidation = await typeOf(withNextToken(async () => Promise.reject(new ValidationError('limit: too big'))));
    const answered = await withNextToken(async () => 'page');

    // Assess
    expect(badCursor).toBe('InvalidNextTokenException');
    expect(otherValidation).toBe('ValidationError');
    expect(answered).toBe('page');
  });
});
