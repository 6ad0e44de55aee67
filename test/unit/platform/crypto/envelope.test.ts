import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { KeyProvider } from '../../../../shared/platform/crypto/key-provider.ts';
import { makeCipher, type SealedValue } from '../../../../shared/platform/crypto/envelope.ts';
import { makeLocalKeyring } from '../../../../shared/platform/crypto/local-keyring.ts';
import { mockedKmsProvider, recordingProvider, secretContext, tempDir } from './support.ts';

const DECRYPT_FAILED = 'The secret value could not be decrypted';

const VALUES: [string, string][] = [
  ['the empty string', ''],
  ['one character', 'x'],
  ['65536 characters', 'abcdefghijklmnop'.repeat(4096)],
  ['non-ASCII text', 'pässwörd – 日本語 🔑 \u0000 end'],
];

/** Flips one bit of a base64 field. */
function flip(field: string, at = 0): string {
  const bytes = Buffer.from(field, 'base64');
  bytes[at]! ^= 0x01;
  return bytes.toString('base64');
}

const providers: [string, (keyFile: string) => { provider: KeyProvider; restore: () => void }][] = [
  ['the local keyring', (keyFile) => ({ provider: makeLocalKeyring({ keyFile }), restore: () => undefined })],
  [
    'the KMS provider (mocked client)',
    (keyFile) => {
      const { provider, kmsMock } = mockedKmsProvider(keyFile);
      return { provider, restore: () => kmsMock.restore() };
    },
  ],
];

describe.each(providers)('envelope cipher over %s', (_label, makeProvider) => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let keys: KeyProvider;
  let restore: () => void;
  beforeEach(async () => {
    dir = await tempDir();
    ({ provider: keys, restore } = makeProvider(join(dir.dir, 'master.key')));
  });
  afterEach(async () => {
    restore();
    await dir.remove();
  });

  it.each(VALUES)('round-trips %s', async (_name, value) => {
    const cipher = makeCipher({ keys });

    const sealed = await cipher.encrypt(value, secretContext());
    const opened = await cipher.decrypt(sealed, secretContext());

    expect(opened).toBe(value);
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
  });

  it('never stores the plaintext in any field', async () => {
    const value = 'correct horse battery staple '.repeat(100);
    const cipher = makeCipher({ keys });

    const sealed = await cipher.encrypt(value, secretContext());

    expect(JSON.stringify(sealed)).not.toContain('correct horse');
    for (const field of Object.values(sealed)) {
      expect(Buffer.from(field, 'base64').includes(Buffer.from('correct horse'))).toBe(false);
    }
  });

  it('uses a fresh data key and IV for every value, and zeroes each plaintext data key after use', async () => {
    const recording = recordingProvider(keys);
    const cipher = makeCipher({ keys: recording.provider });

    const first = await cipher.encrypt('same value', secretContext());
    const second = await cipher.encrypt('same value', secretContext());
    await cipher.decrypt(first, secretContext());

    expect(recording.calls.generate).toBe(2);
    expect(first.encryptedDataKey).not.toBe(second.encryptedDataKey);
    expect(first.iv).not.toBe(second.iv);
    expect(first.ciphertext).not.toBe(second.ciphertext);
    expect(recording.handedOut).toHaveLength(3);
    for (const dataKey of recording.handedOut) expect(dataKey.every((byte) => byte === 0)).toBe(true);
  });

  it('decrypts with the same context built in another key order', async () => {
    const cipher = makeCipher({ keys });
    const sealed = await cipher.encrypt('value', { workspaceId: 'ws_1', secretId: 'sec_1', version: '1' });

    const opened = await cipher.decrypt(sealed, { version: '1', secretId: 'sec_1', workspaceId: 'ws_1' });

    expect(opened).toBe('value');
  });

  it.each([
    ['another secret', secretContext({ secretId: 'sec_01J0000000000000000000000C' })],
    ['another version', secretContext({ version: '2' })],
    ['another workspace', secretContext({ workspaceId: 'ws_01J0000000000000000000000D' })],
  ])('does not decrypt a value copied to %s', async (_label, otherContext) => {
    const cipher = makeCipher({ keys });
    const sealed = await cipher.encrypt('hunter2-secret', secretContext());

    const opening = cipher.decrypt(sealed, otherContext);

    await expect(opening).rejects.toThrow(/could not decrypt|refused to decrypt/);
    await expect(opening).rejects.not.toThrow('hunter2');
  });

  it.each<[string, (sealed: SealedValue) => SealedValue]>([
    ['a flipped ciphertext bit', (s) => ({ ...s, ciphertext: flip(s.ciphertext, 3) })],
    ['a flipped tag bit', (s) => ({ ...s, tag: flip(s.tag) })],
    ['a flipped IV bit', (s) => ({ ...s, iv: flip(s.iv) })],
    ['a truncated tag', (s) => ({ ...s, tag: Buffer.from(s.tag, 'base64').subarray(0, 12).toString('base64') })],
    [
      'an appended ciphertext byte',
      (s) => ({ ...s, ciphertext: Buffer.concat([Buffer.from(s.ciphertext, 'base64'), Buffer.of(0)]).toString('base64') }),
    ],
  ])('refuses %s with a fixed message', async (_label, tamper) => {
    const cipher = makeCipher({ keys });
    const sealed = await cipher.encrypt('a value to protect', secretContext());

    const opening = cipher.decrypt(tamper(sealed), secretContext());

    await expect(opening).rejects.toThrow(DECRYPT_FAILED);
  });

  it('refuses a sealed value whose wrapped data key was tampered with', async () => {
    const cipher = makeCipher({ keys });
    const sealed = await cipher.encrypt('hunter2-secret', secretContext());

    const opening = cipher.decrypt({ ...sealed, encryptedDataKey: flip(sealed.encryptedDataKey, 20) }, secretContext());

    await expect(opening).rejects.toThrow(/could not decrypt|refused to decrypt/);
    await expect(opening).rejects.not.toThrow('hunter2');
  });

  it('refuses a data key wrapped for another version even when the value was moved with it', async () => {
    const cipher = makeCipher({ keys });
    const v1 = await cipher.encrypt('one', secretContext({ version: '1' }));
    const v2 = await cipher.encrypt('two', secretContext({ version: '2' }));

    const opening = cipher.decrypt({ ...v2, encryptedDataKey: v1.encryptedDataKey }, secretContext({ version: '2' }));

    await expect(opening).rejects.toThrow(/could not decrypt|refused to decrypt/);
  });
});
