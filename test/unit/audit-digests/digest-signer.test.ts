import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signedBytes, unsignedDigest } from '../../../shared/audit-digests/digest-record.ts';
import {
  kmsDigestSigner,
  makeKmsDigestSigner,
  makeLocalDigestSigner,
  signDigest,
  spkiDerToPem,
} from '../../../shared/audit-digests/digest-signer.ts';
import { entry, p256 } from './support.ts';

const kmsMock = mockClient(KMSClient);
const KEY_ID = 'arn:aws:kms:eu-west-1:111122223333:key/digest';
const BYTES = Buffer.from('{"count":1}', 'utf8');
const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');

function kmsSigner() {
  return makeKmsDigestSigner({ kms: new KMSClient({ region: 'eu-west-1' }), keyId: KEY_ID });
}

describe('local digest signer', () => {
  it('signs with ECDSA P-256 / SHA-256 in DER that its public key verifies, and nothing else does', async () => {
    // Prepare
    const key = p256();
    const signer = makeLocalDigestSigner(key.privateKeyPem);

    // Act
    const signature = await signer.sign(BYTES);
    const pem = await signer.publicKeyPem();

    // Assess
    expect(pem).toBe(key.publicKeyPem);
    expect(signature[0]).toBe(0x30);
    expect(verify('sha256', BYTES, { key: pem, dsaEncoding: 'der' }, signature)).toBe(true);
    expect(verify('sha256', Buffer.from('{"count":2}'), { key: pem, dsaEncoding: 'der' }, signature)).toBe(false);
  });

  it('puts a base64 signature over the signed bytes on a digest', async () => {
    // Prepare
    const key = p256();
    const fields = unsignedDigest({
      workspaceId: 'ws_1',
      hourStart: '2026-03-01T10:00:00.000Z',
      entries: [entry(1, '2026-03-01T10:01:00.000Z')],
      previous: null,
    });

    // Act
    const digest = await signDigest(makeLocalDigestSigner(key.privateKeyPem), fields);

    // Assess
    expect(digest).toMatchObject(fields);
    expect(
      verify('sha256', signedBytes(digest), { key: key.publicKeyPem, dsaEncoding: 'der' }, Buffer.from(digest.signature, 'base64')),
    ).toBe(true);
  });

  it('refuses a key that is not P-256, without quoting it', () => {
    // Prepare
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

    // Act / Assess
    expect(() => makeLocalDigestSigner(p384)).toThrow(/^The local digest signing key is not an ECDSA P-256 key$/);
    expect(() => makeLocalDigestSigner(ed)).toThrow(/^The local digest signing key is not an ECDSA P-256 key$/);
  });
});

describe('KMS digest signer', () => {
  beforeEach(() => {
    kmsMock.reset();
  });
  afterEach(() => {
    kmsMock.reset();
  });

  it('sends KMS the SHA-256 of the bytes as a DIGEST message, and its DER signature verifies over the bytes', async () => {
    // Prepare: KMS's ECDSA over a digest is node's ECDSA over the bytes it hashes.
    const key = p256();
    kmsMock.on(SignCommand).resolves({ Signature: sign('sha256', BYTES, { key: key.privateKey, dsaEncoding: 'der' }), KeyId: KEY_ID });

    // Act
    const signature = await kmsSigner().sign(BYTES);

    // Assess
    const calls = kmsMock.commandCalls(SignCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      KeyId: KEY_ID,
      Message: createHash('sha256').update(BYTES).digest(),
      MessageType: 'DIGEST',
      SigningAlgorithm: 'ECDSA_SHA_256',
    });
    expect(verify('sha256', BYTES, { key: key.publicKeyPem, dsaEncoding: 'der' }, signature)).toBe(true);
  });

  it('fails when KMS answers no signature', async () => {
    // Prepare
    kmsMock.on(SignCommand).resolves({ KeyId: KEY_ID });

    // Act / Assess
    await expect(kmsSigner().sign(BYTES)).rejects.toThrow('KMS Sign returned no signature');
  });

  it("turns the key's DER SubjectPublicKeyInfo into PEM, asking KMS once", async () => {
    // Prepare
    const key = p256();
    kmsMock.on(GetPublicKeyCommand).resolves({ PublicKey: der(key.publicKeyPem), KeySpec: 'ECC_NIST_P256', KeyId: KEY_ID });
    const signer = kmsSigner();

    // Act
    const [pem, again] = [await signer.publicKeyPem(), await signer.publicKeyPem()];

    // Assess
    expect(pem).toBe(key.publicKeyPem);
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(again).toBe(pem);
    expect(kmsMock.commandCalls(GetPublicKeyCommand)).toHaveLength(1);
    expect(kmsMock.commandCalls(GetPublicKeyCommand)[0]!.args[0].input).toEqual({ KeyId: KEY_ID });
  });

  it('asks for the public key again after a failed ask', async () => {
    // Prepare
    const key = p256();
    kmsMock
      .on(GetPublicKeyCommand)
      .rejectsOnce(new Error('throttled'))
      .resolves({ PublicKey: der(key.publicKeyPem), KeySpec: 'ECC_NIST_P256' });
    const signer = kmsSigner();

    // Act
    await expect(signer.publicKeyPem()).rejects.toThrow('throttled');
    const pem = await signer.publicKeyPem();

    // Assess
    expect(pem).toBe(key.publicKeyPem);
  });

  it('refuses a key KMS says is not ECC_NIST_P256, or whose public key is on another curve, or no key', async () => {
    // Prepare
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'der' });
    kmsMock
      .on(GetPublicKeyCommand)
      .resolvesOnce({ PublicKey: der(p256().publicKeyPem), KeySpec: 'RSA_2048' })
      .resolvesOnce({ PublicKey: p384 })
      .resolvesOnce({});

    // Act / Assess
    await expect(kmsSigner().publicKeyPem()).rejects.toThrow('The KMS digest key is RSA_2048, not ECC_NIST_P256');
    await expect(kmsSigner().publicKeyPem()).rejects.toThrow('The KMS digest key is not an ECDSA P-256 key');
    await expect(kmsSigner().publicKeyPem()).rejects.toThrow('KMS GetPublicKey returned no public key');
    expect(() => spkiDerToPem(p384)).toThrow(/not an ECDSA P-256 key/);
  });

  it('keeps one signer per key id for the container, so the public key is asked once per container', async () => {
    // Prepare
    const key = p256();
    kmsMock.on(GetPublicKeyCommand).resolves({ PublicKey: der(key.publicKeyPem), KeySpec: 'ECC_NIST_P256' });

    // Act
    const first = kmsDigestSigner(KEY_ID);
    await first.publicKeyPem();
    await kmsDigestSigner(KEY_ID).publicKeyPem();

    // Assess
    expect(kmsDigestSigner(KEY_ID)).toBe(first);
    expect(kmsDigestSigner(`${KEY_ID}-other`)).not.toBe(first);
    expect(kmsMock.commandCalls(GetPublicKeyCommand)).toHaveLength(1);
  });
});
