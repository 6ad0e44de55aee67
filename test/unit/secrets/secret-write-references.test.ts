import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Pager } from '../../../shared/platform/store/pager.ts';
import { MAX_REFERENCES_PER_VALUE } from '../../../shared/references/reference-resolving.ts';
import type { SecretRecord } from '../../../shared/secrets/secret-record.ts';
import { makeSecretStore, type NewVersion } from '../../../shared/secrets/secret-store.ts';
import { makeSecretWriter } from '../../../shared/secrets/secret-writer.ts';
import { valueOf } from '../../../shared/aws/secret-writes.ts';
import { caught, fakeCipher, fakeClock, principal } from '../support/fakes.ts';

/**
 * What a write keeps of a value's references (decisions.md v1.4, "Secret references"; docs/references-wiring.md §1):
 * the syntax check before anything is read or sealed, the distinct targets stored as `references` on the head and
 * the version (the marker a reveal resolves by), and nothing at all for a plain value.
 */

const ENVIRONMENT = { id: 'env_01', projectId: 'proj_01', projectSlug: 'app', slug: 'prod' };
const at = (version: number, extra: Partial<SecretRecord> = {}): SecretRecord => ({
  id: 'sec_01',
  key: 'DB_URL',
  projectId: 'proj_01',
  projectSlug: 'app',
  environmentId: 'env_01',
  envSlug: 'prod',
  currentVersion: version,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

/** A writer over a store whose key reads as `current`; the writes it sent are in `store.writeSecretVersion`. */
function writer(current: SecretRecord | undefined = at(1)) {
  const store = {
    getEnvironmentSecret: vi.fn(async () => current),
    getSecretHead: vi.fn(async () => current && { ...current, sealed: { ciphertext: 'x', iv: 'i', tag: 't', encryptedDataKey: 'k' } }),
    getSecretVersion: vi.fn(),
    getVersionNumberOf: vi.fn(),
    writeSecretVersion: vi.fn(async () => {}),
    updateSecretMetadata: vi.fn(),
    countRevealPage: vi.fn(),
    writeAuditEntries: vi.fn(),
  };
  const cipher = fakeCipher();
  const guard = { readable: vi.fn(), permit: vi.fn() };
  const { writeNext } = makeSecretWriter({
    store: store as never,
    cipher,
    clock: fakeClock(),
    guard: guard as never,
    revealsPerMinute: 120,
  });
  const written = () => {
    const [, head, , version] = store.writeSecretVersion.mock.calls[0] as unknown as [string, SecretRecord, unknown, NewVersion];
    return { head, version };
  };
  return { store, cipher, writeNext, written };
}

const references = (count: number) => Array.from({ length: count }, (_, i) => `\${K${i}}`).join('-');

describe('a write of a value with references', () => {
  it('stores its distinct targets by path on the head and the version, in order of first appearance', async () => {
    const { writeNext, written } = writer();
    await writeNext(principal(), ENVIRONMENT, { key: 'DB_URL', value: 'pg://${USER}:${staging.PASS}@${infra.dev.HOST}/${USER}' }, {});
    const paths = ['app/prod/USER', 'app/staging/PASS', 'infra/dev/HOST'];
    expect(written().head.references).toEqual(paths);
    expect(written().version.references).toEqual(paths);
  });

  it('stores no `references` for a plain value, an escaped `$${` or a binary value', async () => {
    for (const value of [{ value: 'plain' }, { value: 'cost $${HOME}' }, { value: 'JHtYfQ==', encoding: 'base64' as const }]) {
      const { writeNext, written } = writer();
      await writeNext(principal(), ENVIRONMENT, { key: 'DB_URL', ...value }, {});
      expect('references' in written().head).toBe(false);
      expect(written().version.references).toEqual([]);
    }
  });

  it(`accepts ${MAX_REFERENCES_PER_VALUE} references, refuses ${MAX_REFERENCES_PER_VALUE + 1} (VALIDATION_ERROR naming the field, never the text) and leaves nothing`, async () => {
    const fits = writer();
    await fits.writeNext(principal(), ENVIRONMENT, { key: 'DB_URL', value: references(MAX_REFERENCES_PER_VALUE) }, {});
    expect(fits.written().head.references).toHaveLength(MAX_REFERENCES_PER_VALUE);
    const { store, cipher, writeNext } = writer();
    const error = await caught(() => writeNext(principal(), ENVIRONMENT, { key: 'DB_URL', value: references(51) }, {}));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toMatch(/^value: the reference at character \d+ is past the 50/);
    expect(error.message).not.toContain('K50');
    expect(store.getEnvironmentSecret).not.toHaveBeenCalled();
    expect(cipher.encrypted).toEqual([]);
    expect(store.writeSecretVersion).not.toHaveBeenCalled();
  });

  it("names the caller's field (the AWS API's SecretString), which the AWS API's valueOf checks before anything changes", async () => {
    const { writeNext } = writer();
    const error = await caught(() => writeNext(principal(), ENVIRONMENT, { key: 'DB_URL', value: '${', field: 'SecretString' }, {}));
    expect(error.message).toMatch(/^SecretString: the reference at character 1 is not closed/);
    expect(() => valueOf({ SecretString: 'a ${b' })).toThrow(/^SecretString: /);
    expect(valueOf({ SecretString: '${B}' })).toEqual({ value: '${B}', field: 'SecretString' });
  });

  it('a rollback to a value that does not parse (written before v1.4) writes it as text, without references', async () => {
    const { writeNext, written } = writer();
    await writeNext(principal(), ENVIRONMENT, { key: 'DB_URL', value: 'echo ${' }, { rollback: { secretId: 'sec_01', from: 1 } });
    expect('references' in written().head).toBe(false);
  });

  it("a version that does not become current keeps the head's references (the current value's), and stores its own", async () => {
    const { writeNext, written } = writer(at(1, { references: ['app/prod/A'] }));
    await writeNext(principal(), ENVIRONMENT, { key: 'DB_URL', value: '${B}' }, { secretId: 'sec_01', stages: ['AWSPENDING'] });
    expect(written().head.references).toEqual(['app/prod/A']);
    expect(written().version.references).toEqual(['app/prod/B']);
  });

  it('a plain value written over one with references drops them from the head', async () => {
    const { writeNext, written } = writer(at(1, { references: ['app/prod/A'] }));
    await writeNext(principal(), ENVIRONMENT, { key: 'DB_URL', value: 'plain' }, {});
    expect('references' in written().head).toBe(false);
  });
});

describe('the store keeps references on every item of the current value, and none for a plain one', () => {
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
  const dynamodb = mockClient(doc);
  const store = makeSecretStore({ doc, tableName: 'T' }, {} as Pager);
  const SEALED = { ciphertext: 'Y2lwaGVy', iv: 'aXY=', tag: 'dGFn', encryptedDataKey: 'ZGs=' };
  const sent = () =>
    dynamodb
      .commandCalls(TransactWriteCommand)[0]!
      .args[0].input.TransactItems!.flatMap((item) => (item.Put ? [item.Put.Item as Record<string, unknown>] : []))
      .filter((item) => item.type !== 'AuditEntry');
  beforeEach(() => {
    dynamodb.reset();
    dynamodb.on(TransactWriteCommand).resolves({});
  });

  it('head, path (which loads read), key and version items carry the list', async () => {
    const references = ['app/prod/A'];
    await store.writeSecretVersion(
      'ws_1',
      { ...at(1, { references }), sealed: SEALED },
      undefined,
      { createdBy: 'k', references },
      undefined,
    );
    // The reverse index's edge is tested in reference-index.test.ts.
    const items = sent().filter((item) => item.type !== 'SecretReference');
    expect(items.map((item) => item.type)).toEqual(['SecretHead', 'SecretPath', 'EnvironmentSecret', 'SecretVersion']);
    expect(items.map((item) => item.references)).toEqual(items.map(() => references));
  });

  it('a plain value writes no `references` attribute on any item', async () => {
    await store.writeSecretVersion('ws_1', { ...at(1), sealed: SEALED }, undefined, { createdBy: 'k', references: [] }, undefined);
    expect(sent().filter((item) => 'references' in item)).toEqual([]);
  });
});
