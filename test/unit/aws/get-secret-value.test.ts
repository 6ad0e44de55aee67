import { describe, expect, it, vi } from 'vitest';
import { toAwsError } from '../../../shared/aws/aws-errors.ts';
import { makeGetSecretValue } from '../../../shared/aws/get-secret-value.ts';
import { NotFoundError } from '../../../shared/platform/errors.ts';
import type { SecretRecord } from '../../../shared/secrets/index.ts';
import { derivedVersionId, LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import { principal } from '../support/fakes.ts';

/**
 * GetSecretValue's choice of version (decisions.md, "Versions without labels"), over a stand-in for the reveals: the
 * VersionId of a version without labels still names it (its token read from its claim item), a VersionId and a
 * VersionStage that name different versions are InvalidRequestException, and a labelled version's VersionId costs
 * no read beyond the head's.
 */

const token = (n: number) => `${String(n).padStart(8, '0')}-5555-4555-8555-555555555555`;

// Version 1 (token, no label now), 2 (no token, no label), 3 AWSPREVIOUS (token), 4 AWSCURRENT (no token),
// 5 AWSPENDING reserved by a rotation under its token (no value yet).
const secret: SecretRecord = {
  id: 'sec_01',
  key: 'DB_URL',
  projectId: 'proj_01',
  projectSlug: 'app',
  environmentId: 'env_01',
  envSlug: 'prod',
  currentVersion: 4,
  latestVersion: 5,
  labels: { AWSCURRENT: 4, AWSPREVIOUS: 3, AWSPENDING: 5 },
  versionIds: { '3': token(3), '5': token(5) },
  unfilled: [5],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
};
// What the claim items (`VID#<token>`) name.
const claims = new Map([
  [token(1), 1],
  [token(3), 3],
  [token(5), 5],
]);

/** The operation over a reveal that answers whichever version the selection chose (NOT_FOUND for none). */
function operation() {
  const claimReads = vi.fn(async (versionId: string) => claims.get(versionId));
  const get = makeGetSecretValue(
    {
      prefetch: { revealByPath: () => [] } as never,
      revealSelected: (async (
        _principal: unknown,
        _path: string,
        select: (s: SecretRecord, read: typeof claimReads) => Promise<number>,
      ) => {
        const version = await select(secret, claimReads);
        if (version === undefined) throw new NotFoundError('no such version');
        return { id: secret.id, key: secret.key, version, value: `value ${version}`, versionCreatedAt: secret.updatedAt, secret };
      }) as never,
    },
    async (_principal, _id, error) => {
      throw error;
    },
    LOCAL_PLACE,
  );
  const send = (input: Record<string, string>) =>
    get.handle(principal(), { SecretId: 'app/prod/DB_URL', ...input } as never, {} as never) as Promise<Record<string, unknown>>;
  return { send, claimReads };
}

const errorType = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => toAwsError(error).type,
  );

describe('GetSecretValue by VersionId', () => {
  it('answers a version without labels by its token (one claim read) or its derived id (none), with no stages', async () => {
    // Prepare
    const { send, claimReads } = operation();

    // Act
    const byToken = await send({ VersionId: token(1) });
    const readsForToken = claimReads.mock.calls.length;
    const byDerived = await send({ VersionId: derivedVersionId(secret.id, 2) });

    // Assess
    expect(byToken).toMatchObject({ VersionId: token(1), SecretString: 'value 1', VersionStages: [] });
    expect(readsForToken).toBe(1);
    expect(byDerived).toMatchObject({ VersionId: derivedVersionId(secret.id, 2), SecretString: 'value 2', VersionStages: [] });
    expect(claimReads).toHaveBeenCalledTimes(1);
  });

  it('reads nothing beyond the head for a labelled version, by its token or its derived id', async () => {
    // Prepare
    const { send, claimReads } = operation();

    // Act
    const previous = await send({ VersionId: token(3) });
    const current = await send({ VersionId: derivedVersionId(secret.id, 4), VersionStage: 'AWSCURRENT' });

    // Assess
    expect(previous).toMatchObject({ SecretString: 'value 3', VersionStages: ['AWSPREVIOUS'] });
    expect(current).toMatchObject({ SecretString: 'value 4', VersionStages: ['AWSCURRENT'] });
    expect(claimReads).not.toHaveBeenCalled();
  });

  it('is InvalidRequestException when the VersionStage is not on the version the VersionId names', async () => {
    // Prepare
    const { send } = operation();

    // Act
    const labelledElsewhere = await errorType(send({ VersionId: token(3), VersionStage: 'AWSCURRENT' }));
    const unlabelled = await errorType(send({ VersionId: token(1), VersionStage: 'AWSPREVIOUS' }));
    const onNoVersion = await errorType(send({ VersionId: token(3), VersionStage: 'blue' }));

    // Assess
    expect([labelledElsewhere, unlabelled, onNoVersion]).toEqual(Array(3).fill('InvalidRequestException'));
  });

  it('is ResourceNotFoundException for a VersionId that names no version, with or without a VersionStage', async () => {
    // Prepare
    const { send } = operation();

    // Act
    const unknown = await errorType(send({ VersionId: token(9) }));
    const unknownWithStage = await errorType(send({ VersionId: token(9), VersionStage: 'AWSCURRENT' }));
    const pastTheLatest = await errorType(send({ VersionId: derivedVersionId(secret.id, 6) }));

    // Assess
    expect([unknown, unknownWithStage, pastTheLatest]).toEqual(Array(3).fill('ResourceNotFoundException'));
  });

  it("selects a rotation's reserved version by its token and AWSPENDING (its reveal, finding no value, is not found)", async () => {
    // Prepare
    const { send } = operation();

    // Act
    const reserved = await send({ VersionId: token(5), VersionStage: 'AWSPENDING' });

    // Assess
    expect(reserved).toMatchObject({ VersionId: token(5), VersionStages: ['AWSPENDING'] });
  });

  it('a VersionStage alone names only a label, never a member of Object.prototype', async () => {
    // Prepare
    const { send } = operation();

    // Act
    const pending = await send({ VersionStage: 'AWSPENDING' });
    const named = await Promise.all(['constructor', '__proto__', 'toString'].map((stage) => errorType(send({ VersionStage: stage }))));

    // Assess
    expect(pending).toMatchObject({ VersionId: token(5) });
    expect(named).toEqual(Array(3).fill('ResourceNotFoundException'));
  });
});
