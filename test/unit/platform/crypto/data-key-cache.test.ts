import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DecryptCommand } from '@aws-sdk/client-kms';
import type { Clock } from '../../../../shared/platform/clock.ts';
import { makeCipher } from '../../../../shared/platform/crypto/envelope.ts';
import { makeLocalKeyring } from '../../../../shared/platform/crypto/local-keyring.ts';
import { mockedKmsProvider, recordingProvider, secretContext, tempDir } from './support.ts';

const TTL_MS = 60_000;

describe('envelope cipher with the data key cache', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let recording: ReturnType<typeof recordingProvider>;
  let clock: Clock & { ms: number };
  beforeEach(async () => {
    dir = await tempDir();
    recording = recordingProvider(makeLocalKeyring({ keyFile: join(dir.dir, 'master.key') }));
    clock = { ms: 1_700_000_000_000, now: () => clock.ms };
  });
  afterEach(async () => {
    await dir.remove();
  });

  function cachedCipher(maxEntries = 1000) {
    return makeCipher({ keys: recording.provider, dataKeyCache: { maxEntries, ttlMs: TTL_MS, clock } });
  }

  it('unwraps the data key once for two decrypts of the same value and keeps it intact while cached', async () => {
    const cipher = cachedCipher();
    const sealed = await cipher.encrypt('value', secretContext());

    const first = await cipher.decrypt(sealed, secretContext());
    const second = await cipher.decrypt(sealed, secretContext());

    expect([first, second]).toEqual(['value', 'value']);
    expect(recording.calls.decrypt).toHaveLength(1);
    expect(recording.handedOut.at(-1)!.some((byte) => byte !== 0)).toBe(true);
  });

  it('without the option asks the provider every time', async () => {
    const cipher = makeCipher({ keys: recording.provider });
    const sealed = await cipher.encrypt('value', secretContext());

    await cipher.decrypt(sealed, secretContext());
    await cipher.decrypt(sealed, secretContext());

    expect(recording.calls.decrypt).toHaveLength(2);
  });

  it('does not serve a cached key for another context', async () => {
    const cipher = cachedCipher();
    const sealed = await cipher.encrypt('value', secretContext());
    await cipher.decrypt(sealed, secretContext());

    const opening = cipher.decrypt(sealed, secretContext({ version: '2' }));

    await expect(opening).rejects.toThrow('The local keyring could not decrypt a data key');
    expect(recording.calls.decrypt).toEqual([secretContext(), secretContext({ version: '2' })]);
  });

  it('still refuses a tampered ciphertext when its data key is cached', async () => {
    const cipher = cachedCipher();
    const sealed = await cipher.encrypt('value', secretContext());
    await cipher.decrypt(sealed, secretContext());
    const tag = Buffer.from(sealed.tag, 'base64');
    tag[0]! ^= 0x01;

    const opening = cipher.decrypt({ ...sealed, tag: tag.toString('base64') }, secretContext());

    await expect(opening).rejects.toThrow('The secret value could not be decrypted');
    expect(recording.calls.decrypt).toHaveLength(1);
  });

  it('serves a key until just before the TTL and unwraps it again at the TTL, zeroing the expired copy', async () => {
    const cipher = cachedCipher();
    const sealed = await cipher.encrypt('value', secretContext());
    await cipher.decrypt(sealed, secretContext());
    const firstKey = recording.handedOut.at(-1)!;

    clock.ms += TTL_MS - 1;
    await cipher.decrypt(sealed, secretContext());
    const callsBeforeExpiry = recording.calls.decrypt.length;
    clock.ms += 1;
    await cipher.decrypt(sealed, secretContext());

    expect(callsBeforeExpiry).toBe(1);
    expect(recording.calls.decrypt).toHaveLength(2);
    expect(firstKey.every((byte) => byte === 0)).toBe(true);
  });

  it('holds at most maxEntries keys, evicting and zeroing the least recently used', async () => {
    const cipher = cachedCipher(2);
    const contexts = ['1', '2', '3'].map((version) => secretContext({ version }));
    const [a, b, c] = await Promise.all(contexts.map((context) => cipher.encrypt(`v${context.version}`, context)));
    await cipher.decrypt(a!, contexts[0]!);
    await cipher.decrypt(b!, contexts[1]!);
    await cipher.decrypt(a!, contexts[0]!);
    const keyOfB = recording.handedOut.at(-1)!;

    await cipher.decrypt(c!, contexts[2]!);
    await cipher.decrypt(a!, contexts[0]!);
    const callsAfterA = recording.calls.decrypt.length;
    await cipher.decrypt(b!, contexts[1]!);

    expect(callsAfterA).toBe(3);
    expect(recording.calls.decrypt).toHaveLength(4);
    expect(keyOfB.every((byte) => byte === 0)).toBe(true);
  });
});

describe('envelope cipher with the data key cache over KMS', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let kms: ReturnType<typeof mockedKmsProvider>;
  beforeEach(async () => {
    dir = await tempDir();
    kms = mockedKmsProvider(join(dir.dir, 'master.key'));
  });
  afterEach(async () => {
    kms.kmsMock.restore();
    await dir.remove();
  });

  it('reveals the same version again in a warm container with no KMS call', async () => {
    const { provider, kmsMock } = kms;
    const cipher = makeCipher({ keys: provider, dataKeyCache: {} });
    const sealed = await cipher.encrypt('value', secretContext());

    await cipher.decrypt(sealed, secretContext());
    const callsAfterFirst = kmsMock.commandCalls(DecryptCommand).length;
    const again = await cipher.decrypt(sealed, secretContext());

    expect(again).toBe('value');
    expect(callsAfterFirst).toBe(1);
    expect(kmsMock.commandCalls(DecryptCommand)).toHaveLength(1);
  });
});
