import { createPrivateKey, verify } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestBucketOf, digestSignerOf, keyringDigestSigner } from '../../../shared/audit-digests/digest-wiring.ts';
import { loadOrCreateDigestSigningKey } from '../../../shared/platform/crypto/local-keyring.ts';
import { p256 } from './support.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'digest-wiring-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the local keyring's digest signing key", () => {
  it('is a P-256 key made once, kept in a private file, and the same key after a restart', async () => {
    // Prepare
    const keyFile = join(root, 'state', 'audit-signing-key.pem');

    // Act
    const first = await loadOrCreateDigestSigningKey(keyFile);
    const again = await loadOrCreateDigestSigningKey(keyFile);

    // Assess
    expect(again).toBe(first);
    expect(createPrivateKey(first).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
  });

  it('is the one already in the file, never replaced', async () => {
    // Prepare
    const keyFile = join(root, 'audit-signing-key.pem');
    const kept = p256().privateKeyPem;
    await writeFile(keyFile, kept);

    // Act / Assess
    expect(await loadOrCreateDigestSigningKey(keyFile)).toBe(kept);
    expect(await readFile(keyFile, 'utf8')).toBe(kept);
  });

  it('signs digests through the keyring signer, which its public key verifies', async () => {
    // Prepare
    const signer = keyringDigestSigner(join(root, 'audit-signing-key.pem'));
    const bytes = Buffer.from('{"count":1}');

    // Act
    const signature = await signer.sign(bytes);

    // Assess
    expect(verify('sha256', bytes, { key: await signer.publicKeyPem(), dsaEncoding: 'der' }, signature)).toBe(true);
  });
});

describe('digest wiring settings', () => {
  it.each([
    [{}, 'Invalid configuration: AUDIT_SIGNING_KEY_ID (or AUDIT_LOCAL_SIGNING_KEY_FILE for the local stack) is required'],
    [
      { AUDIT_SIGNING_KEY_ID: 'k', AUDIT_LOCAL_SIGNING_KEY_FILE: 'f' },
      'Invalid configuration: set AUDIT_SIGNING_KEY_ID or AUDIT_LOCAL_SIGNING_KEY_FILE, not both',
    ],
  ])('refuses a signer setting missing or doubled: %j', (env, message) => {
    // Act / Assess
    expect(() => digestSignerOf(env)).toThrow(message);
  });

  it.each([
    [{}, 'Invalid configuration: AUDIT_BUCKET (or AUDIT_LOCAL_BUCKET_DIR for the local stack) is required'],
    [{ AUDIT_BUCKET: 'b', AUDIT_LOCAL_BUCKET_DIR: 'd' }, 'Invalid configuration: set AUDIT_BUCKET or AUDIT_LOCAL_BUCKET_DIR, not both'],
  ])('refuses a bucket setting missing or doubled: %j', (env, message) => {
    // Act / Assess
    expect(() => digestBucketOf(env)).toThrow(message);
  });

  it('writes to the local folder AUDIT_LOCAL_BUCKET_DIR names', async () => {
    // Prepare
    const bucket = digestBucketOf({ AUDIT_LOCAL_BUCKET_DIR: join(root, 'audit-bucket') });

    // Act
    await bucket.putOnce('ws_1/x.digest.json', '{}', 'application/json');

    // Assess
    expect(await readFile(join(root, 'audit-bucket', 'ws_1', 'x.digest.json'), 'utf8')).toBe('{}');
  });
});
