import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, InvalidCiphertextException, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import type { DataKey, EncryptionContext, KeyProvider } from '../../../../shared/platform/crypto/key-provider.ts';
import { makeKmsKeyProvider } from '../../../../shared/platform/crypto/kms-key-provider.ts';
import { makeLocalKeyring } from '../../../../shared/platform/crypto/local-keyring.ts';

export const KEY_ID = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** The context of a secret version, as the secrets service will build it. */
export function secretContext(overrides: Partial<EncryptionContext> = {}): EncryptionContext {
  return { workspaceId: 'ws_01J0000000000000000000000A', secretId: 'sec_01J0000000000000000000000B', version: '1', ...overrides };
}

/** A fresh temporary directory and its removal. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'crypto-test-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A KeyProvider that records every call and keeps every plaintext key it handed out, to check they get zeroed. */
export function recordingProvider(inner: KeyProvider) {
  const calls = { generate: 0, decrypt: [] as EncryptionContext[] };
  const handedOut: Buffer[] = [];
  const provider: KeyProvider = {
    async generateDataKey(context: EncryptionContext): Promise<DataKey> {
      calls.generate += 1;
      const dataKey = await inner.generateDataKey(context);
      handedOut.push(dataKey.plaintext);
      return dataKey;
    },
    async decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
      calls.decrypt.push(context);
      const dataKey = await inner.decryptDataKey(encrypted, context);
      handedOut.push(dataKey);
      return dataKey;
    },
  };
  return { provider, calls, handedOut };
}

/**
 * The KMS provider over a mocked KMSClient that behaves like KMS: data keys are really wrapped (by a local keyring
 * standing in for the HSM), and Decrypt refuses a blob under another context with InvalidCiphertextException.
 */
export function mockedKmsProvider(keyFile: string) {
  const hsm = makeLocalKeyring({ keyFile });
  const kmsMock = mockClient(KMSClient);
  kmsMock.on(GenerateDataKeyCommand).callsFake(async (input: { EncryptionContext?: EncryptionContext; KeyId?: string }) => {
    const dataKey = await hsm.generateDataKey(input.EncryptionContext ?? {});
    return { Plaintext: new Uint8Array(dataKey.plaintext), CiphertextBlob: new Uint8Array(dataKey.encrypted), KeyId: input.KeyId };
  });
  kmsMock.on(DecryptCommand).callsFake(async (input: { CiphertextBlob?: Uint8Array; EncryptionContext?: EncryptionContext }) => {
    try {
      const plaintext = await hsm.decryptDataKey(Buffer.from(input.CiphertextBlob ?? []), input.EncryptionContext ?? {});
      return { Plaintext: new Uint8Array(plaintext), KeyId: KEY_ID };
    } catch {
      throw new InvalidCiphertextException({ message: 'KMS internal detail', $metadata: {} });
    }
  });
  const provider = makeKmsKeyProvider({ kms: new KMSClient({ region: 'eu-west-1' }), keyId: KEY_ID });
  return { provider, kmsMock };
}
