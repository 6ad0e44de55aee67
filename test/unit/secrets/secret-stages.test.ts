import { describe, expect, it, vi } from 'vitest';
import { ConflictError, NotFoundError } from '../../../shared/platform/errors.ts';
import { StageRuleError } from '../../../shared/secrets/secret-labels.ts';
import { derivedVersionId } from '../../../shared/secrets/secret-names.ts';
import { VersionConflictError, type StoredSecret, type StoredVersion } from '../../../shared/secrets/secret-record.ts';
import { makeSecretStages } from '../../../shared/secrets/secret-stages.ts';
import { fakeClock, principal, T0 } from '../support/fakes.ts';

/**
 * Label moves and the labelled versions (shared/secrets/secret-stages.ts) over a fake store: which version a VersionId
 * names (labelled, derived, a write's token), what the head becomes after a move (its value when AWSCURRENT moves,
 * the tokens it keeps), how each move is audited, and the refusals the module decides.
 */

const TOKEN_2 = '2'.repeat(32);
const TOKEN_4 = '4'.repeat(32);
const sealed = (n: number) => ({ ciphertext: `v${n}`, iv: 'iv', tag: 'tag', encryptedDataKey: 'dk' });

// Versions 1 (no token, no label), 2 AWSPREVIOUS (token), 3 AWSCURRENT, 4 AWSPENDING reserved by a rotation (no value).
const HEAD: StoredSecret = {
  id: 'sec_1',
  key: 'DB_URL',
  projectId: 'proj_1',
  projectSlug: 'app',
  environmentId: 'env_1',
  envSlug: 'prod',
  currentVersion: 3,
  latestVersion: 4,
  labels: { AWSCURRENT: 3, AWSPREVIOUS: 2, AWSPENDING: 4 },
  versionIds: { '2': TOKEN_2, '4': TOKEN_4 },
  unfilled: [4],
  revision: 9,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-03T00:00:00.000Z',
  sealed: sealed(3),
};

const version = (n: number, overrides: Partial<StoredVersion> = {}): StoredVersion => ({
  version: n,
  sealed: sealed(n),
  createdAt: `2026-01-0${n}T00:00:00.000Z`,
  createdBy: 'key_1',
  rolledBackFrom: null,
  versionId: n === 2 ? TOKEN_2 : null,
  ...overrides,
});

/** The module over a store holding HEAD and versions 1 to 3 (`versions` overrides them). */
function stages(versions: Record<number, StoredVersion | undefined> = { 1: version(1), 2: version(2), 3: version(3) }) {
  const store = {
    getSecretHead: vi.fn(async () => HEAD),
    getSecretVersion: vi.fn(async (_ws: string, _id: string, n: number) => versions[n]),
    getSecretVersionRecords: vi.fn(async (_ws: string, _id: string, numbers: number[]) =>
      numbers.flatMap((n) => (versions[n] ? [{ ...versions[n]!, sealed: undefined }] : [])),
    ),
    getVersionNumberOf: vi.fn(
      async (_ws: string, _id: string, versionId: string): Promise<number | undefined> => (versionId === TOKEN_2 ? 2 : undefined),
    ),
    writeSecretVersion: vi.fn(async (..._args: unknown[]) => undefined),
  };
  const guard = { readable: vi.fn(async (_p: unknown, head: StoredSecret) => head), permit: vi.fn(async () => undefined) };
  const made = makeSecretStages({ store: store as never, clock: fakeClock(T0), reviewGate: async () => undefined }, guard as never);
  const move = (stage: string, to?: string, from?: string) => made.moveStage(principal(), HEAD, stage, to, from);
  /** What the one write wrote: the head, and the audit entry's action and metadata. */
  const written = () => {
    const [, head, expected, newVersion, audit] = store.writeSecretVersion.mock.calls[0] as [
      string,
      StoredSecret,
      StoredSecret,
      null,
      { action: string; metadata: Record<string, unknown> },
    ];
    return { head, expected, newVersion, action: audit.action, metadata: audit.metadata };
  };
  return { ...made, move, store, guard, written };
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => 'moved',
    (error: Error) => `${error.constructor.name}: ${error.message}`,
  );

describe('moveStage', () => {
  it('puts a label of its own on a version named by its derived VersionId: the value stays, audited secret.stage', async () => {
    // Prepare
    const { move, written, guard } = stages();

    // Act
    const after = await move('blue', derivedVersionId('sec_1', 1));

    // Assess
    const { head, expected, newVersion, action, metadata } = written();
    expect(guard.permit).toHaveBeenCalledWith(expect.anything(), 'write', HEAD);
    expect(head.labels).toEqual({ AWSCURRENT: 3, AWSPREVIOUS: 2, AWSPENDING: 4, blue: 1 });
    // A derived VersionId is not stored: it is derived again when asked for.
    expect(head.versionIds).toEqual({ '2': TOKEN_2, '4': TOKEN_4 });
    expect(head).toMatchObject({ currentVersion: 3, sealed: sealed(3), updatedAt: HEAD.updatedAt, revision: 10, latestVersion: 4 });
    expect([expected, newVersion]).toEqual([HEAD, null]);
    expect([action, metadata]).toMatchObject([
      'secret.stage',
      { key: 'DB_URL', projectId: 'proj_1', environmentId: 'env_1', stage: 'blue', version: 1 },
    ]);
    expect(after).not.toHaveProperty('sealed');
  });

  it("moves AWSCURRENT back to an older version: its value and encoding become the head's, audited secret.rotate", async () => {
    // Prepare
    const { move, written } = stages({ 2: version(2, { encoding: 'base64' }), 3: version(3) });

    // Act
    await move('AWSCURRENT', TOKEN_2, derivedVersionId('sec_1', 3));

    // Assess
    const { head, action, metadata } = written();
    expect(head).toMatchObject({
      currentVersion: 2,
      sealed: sealed(2),
      encoding: 'base64',
      latestVersion: 4,
      updatedAt: new Date(T0).toISOString(),
    });
    expect(head.labels).toEqual({ AWSCURRENT: 2, AWSPREVIOUS: 3, AWSPENDING: 4 });
    expect(head.versionIds).toEqual({ '2': TOKEN_2, '4': TOKEN_4 });
    expect([action, metadata]).toMatchObject(['secret.rotate', { version: 2, stage: 'AWSCURRENT' }]);
  });

  it("keeps the token a version was written with once a label is on it (the head keeps labelled versions' tokens)", async () => {
    // Prepare
    const TOKEN_1 = '1'.repeat(32);
    const { move, written, store } = stages();
    store.getVersionNumberOf.mockResolvedValueOnce(1);

    // Act
    await move('blue', TOKEN_1);

    // Assess
    expect(written().head.versionIds).toEqual({ '1': TOKEN_1, '2': TOKEN_2, '4': TOKEN_4 });
  });

  it('takes a label off the version named, keeping only the tokens of versions still labelled', async () => {
    // Prepare
    const { move, written } = stages();

    // Act
    await move('AWSPENDING', undefined, TOKEN_4);

    // Assess
    const { head, metadata } = written();
    expect(head.labels).toEqual({ AWSCURRENT: 3, AWSPREVIOUS: 2 });
    expect(head.versionIds).toEqual({ '2': TOKEN_2 });
    expect(metadata).toMatchObject({ stage: 'AWSPENDING', removedFrom: 4 });
    expect(metadata).not.toHaveProperty('version');
  });

  it('refuses to make current a version a rotation reserved that has no value yet (CONFLICT), writing nothing', async () => {
    // Prepare
    const { move, store } = stages();

    // Act
    const answer = await rejection(move('AWSCURRENT', TOKEN_4, derivedVersionId('sec_1', 3)));

    // Assess
    expect(answer).toBe(`${ConflictError.name}: MoveToVersionId: that version has no value yet; PutSecretValue with its token first`);
    expect(store.writeSecretVersion).not.toHaveBeenCalled();
  });

  it('NOT_FOUND for a MoveToVersionId past the latest version, of another secret, or derived for a version that has a token', async () => {
    // Prepare
    const { move, store } = stages();

    // Act
    const answers = await Promise.all([
      rejection(move('blue', derivedVersionId('sec_1', 5))),
      rejection(move('blue', derivedVersionId('sec_other', 1))),
      rejection(move('blue', derivedVersionId('sec_1', 2))),
      rejection(move('blue', '9'.repeat(32))),
    ]);

    // Assess
    expect(answers).toEqual(Array(4).fill(`${NotFoundError.name}: MoveToVersionId: secret sec_1 has no version with this VersionId`));
    expect(store.getSecretVersionRecords).not.toHaveBeenCalled();
  });

  it('NOT_FOUND for a derived VersionId of an unlabelled version that was written with a token of its own', async () => {
    // Prepare
    const { move, store } = stages({ 1: version(1, { versionId: 'x'.repeat(32) }) });

    // Act
    const answer = await rejection(move('blue', derivedVersionId('sec_1', 1)));

    // Assess
    expect(answer).toMatch(/^NotFoundError: MoveToVersionId/);
    expect(store.getSecretVersionRecords).toHaveBeenCalledWith('ws_test', 'sec_1', [1]);
  });

  it('a RemoveFromVersionId naming no version: the label rule first when the label is elsewhere, else NOT_FOUND', async () => {
    // Prepare
    const { move } = stages();
    const nothing = '9'.repeat(32);

    // Act
    const elsewhere = await rejection(move('AWSPREVIOUS', undefined, nothing));
    const nowhere = await rejection(move('green', undefined, nothing));

    // Assess
    expect(elsewhere).toBe(
      `${StageRuleError.name}: RemoveFromVersionId: AWSPREVIOUS is on another version, which must be named to move it`,
    );
    expect(nowhere).toBe(`${NotFoundError.name}: RemoveFromVersionId: secret sec_1 has no version with this VersionId`);
  });

  it('NOT_FOUND when the version AWSCURRENT moves to has no item', async () => {
    // Prepare
    const { move } = stages({ 1: undefined, 2: undefined, 3: version(3) });

    // Act
    const answer = await rejection(move('AWSCURRENT', TOKEN_2, derivedVersionId('sec_1', 3)));

    // Assess
    expect(answer).toBe(`${NotFoundError.name}: secret sec_1 has no version 2`);
  });

  it('reads the head again and moves on it after losing a race', async () => {
    // Prepare
    const { move, store } = stages();
    store.writeSecretVersion.mockRejectedValueOnce(new VersionConflictError());

    // Act
    await move('blue', TOKEN_2);

    // Assess
    expect(store.getSecretHead).toHaveBeenCalledTimes(2);
    expect(store.writeSecretVersion).toHaveBeenCalledTimes(2);
  });
});

describe('labelledVersions', () => {
  it('lists the labelled versions newest first with their VersionIds and labels; a reserved one has no createdAt and is not read', async () => {
    // Prepare
    const { labelledVersions, store } = stages();

    // Act
    const listed = await labelledVersions(principal(), HEAD);

    // Assess
    expect(listed).toEqual([
      { version: 4, versionId: TOKEN_4, stages: ['AWSPENDING'], createdAt: null },
      { version: 3, versionId: derivedVersionId('sec_1', 3), stages: ['AWSCURRENT'], createdAt: '2026-01-03T00:00:00.000Z' },
      { version: 2, versionId: TOKEN_2, stages: ['AWSPREVIOUS'], createdAt: '2026-01-02T00:00:00.000Z' },
    ]);
    expect(store.getSecretVersionRecords).toHaveBeenCalledWith('ws_test', 'sec_1', [3, 2]);
  });
});

describe('moveStage and references (decisions.md v1.4, "Secret references")', () => {
  it("takes the new current version's references when AWSCURRENT moves, and drops the old one's", async () => {
    const head = { ...HEAD, references: ['app/prod/OLD'] };
    const moved = stages({ 2: version(2, { references: ['app/prod/NEW'] }), 3: version(3) });
    moved.store.getSecretHead.mockResolvedValue(head);
    await moved.moveStage(principal(), head, 'AWSCURRENT', TOKEN_2, derivedVersionId('sec_1', 3));
    expect(moved.written().head.references).toEqual(['app/prod/NEW']);
    const plain = stages();
    plain.store.getSecretHead.mockResolvedValue(head);
    await plain.moveStage(principal(), head, 'AWSCURRENT', TOKEN_2, derivedVersionId('sec_1', 3));
    expect(plain.written().head).not.toHaveProperty('references');
  });
});
