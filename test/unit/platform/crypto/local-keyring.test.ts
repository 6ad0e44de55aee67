import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeLocalKeyring } from '../../../../shared/platform/crypto/local-keyring.ts';
import { secretContext, tempDir } from './support.ts';

const UNWRAP_FAILED = 'The local keyring could not decrypt a data key';

describe('local keyring', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let keyFile: string;
  beforeEach(async () => {
    dir = await tempDir();
    keyFile = join(dir.dir, 'nested', 'master.key');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('wraps a fresh 32-byte data key in the documented 61-byte format and unwraps it again', async () => {
    const keyring = makeLocalKeyring({ keyFile });
    const context = secretContext();

    const dataKey = await keyring.generateDataKey(context);
    const unwrapped = await keyring.decryptDataKey(dataKey.encrypted, context);

    expect(dataKey.plaintext).toHaveLength(32);
    expect(dataKey.encrypted).toHaveLength(61);
    expect(dataKey.encrypted[0]).toBe(1);
    expect(dataKey.encrypted.includes(dataKey.plaintext)).toBe(false);
    expect(unwrapped).toEqual(dataKey.plaintext);
  });

  it('makes a different data key and IV every time', async () => {
    const keyring = makeLocalKeyring({ keyFile });

    const first = await keyring.generateDataKey(secretContext());
    const second = await keyring.generateDataKey(secretContext());

    expect(first.plaintext.equals(second.plaintext)).toBe(false);
    expect(first.encrypted.subarray(1, 13).equals(second.encrypted.subarray(1, 13))).toBe(false);
  });

  it('accepts the same context built in another key order', async () => {
    const keyring = makeLocalKeyring({ keyFile });
    const { encrypted, plaintext } = await keyring.generateDataKey({ workspaceId: 'ws_1', secretId: 'sec_1', version: '2' });

    const unwrapped = await keyring.decryptDataKey(encrypted, { version: '2', secretId: 'sec_1', workspaceId: 'ws_1' });

    expect(unwrapped).toEqual(plaintext);
  });

  it.each([
    ['another secret', secretContext({ secretId: 'sec_01J0000000000000000000000C' })],
    ['another version', secretContext({ version: '2' })],
    ['another workspace', secretContext({ workspaceId: 'ws_01J0000000000000000000000D' })],
    ['an extra entry', { ...secretContext(), purpose: 'x' }],
    ['a missing entry', { workspaceId: secretContext().workspaceId!, secretId: secretContext().secretId! }],
  ])('refuses to unwrap under %s', async (_label, otherContext) => {
    const keyring = makeLocalKeyring({ keyFile });
    const { encrypted } = await keyring.generateDataKey(secretContext());

    const unwrapping = keyring.decryptDataKey(encrypted, otherContext);

    await expect(unwrapping).rejects.toThrow(UNWRAP_FAILED);
  });

  it.each([
    ['the version byte', 0],
    ['the IV', 5],
    ['the tag', 20],
    ['the wrapped key', 50],
  ])('refuses a blob with a flipped bit in %s', async (_label, offset) => {
    const keyring = makeLocalKeyring({ keyFile });
    const { encrypted } = await keyring.generateDataKey(secretContext());
    const tampered = Buffer.from(encrypted);
    tampered[offset]! ^= 0x01;

    const unwrapping = keyring.decryptDataKey(tampered, secretContext());

    await expect(unwrapping).rejects.toThrow(UNWRAP_FAILED);
  });

  it('refuses a truncated or extended blob', async () => {
    const keyring = makeLocalKeyring({ keyFile });
    const { encrypted } = await keyring.generateDataKey(secretContext());

    const truncated = keyring.decryptDataKey(encrypted.subarray(0, 60), secretContext());
    const extended = keyring.decryptDataKey(Buffer.concat([encrypted, Buffer.of(0)]), secretContext());

    await expect(truncated).rejects.toThrow(UNWRAP_FAILED);
    await expect(extended).rejects.toThrow(UNWRAP_FAILED);
  });

  it('creates the master key file with mode 0600 and a second instance reuses it', async () => {
    const { encrypted, plaintext } = await makeLocalKeyring({ keyFile }).generateDataKey(secretContext());
    const masterKey = await readFile(keyFile);

    const unwrapped = await makeLocalKeyring({ keyFile }).decryptDataKey(encrypted, secretContext());

    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(masterKey).toHaveLength(32);
    expect(unwrapped).toEqual(plaintext);
    expect(await readFile(keyFile)).toEqual(masterKey);
  });

  it('agrees on one master key when two instances start at the same time', async () => {
    const [a, b] = [makeLocalKeyring({ keyFile }), makeLocalKeyring({ keyFile })];

    const [fromA, fromB] = await Promise.all([a.generateDataKey(secretContext()), b.generateDataKey(secretContext())]);

    expect(await b.decryptDataKey(fromA.encrypted, secretContext())).toEqual(fromA.plaintext);
    expect(await a.decryptDataKey(fromB.encrypted, secretContext())).toEqual(fromB.plaintext);
  });

  it('cannot unwrap what another master key wrapped', async () => {
    const { encrypted } = await makeLocalKeyring({ keyFile }).generateDataKey(secretContext());
    const other = makeLocalKeyring({ keyFile: join(dir.dir, 'other.key') });

    const unwrapping = other.decryptDataKey(encrypted, secretContext());

    await expect(unwrapping).rejects.toThrow(UNWRAP_FAILED);
  });

  it('refuses a key file of the wrong size instead of replacing it', async () => {
    const damaged = join(dir.dir, 'damaged.key');
    await writeFile(damaged, Buffer.alloc(16, 1));

    const generating = makeLocalKeyring({ keyFile: damaged }).generateDataKey(secretContext());

    await expect(generating).rejects.toThrow('is not 32 bytes long');
    expect(await readFile(damaged)).toEqual(Buffer.alloc(16, 1));
  });
});
