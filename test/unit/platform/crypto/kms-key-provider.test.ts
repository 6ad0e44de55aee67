import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DecryptCommand,
  DependencyTimeoutException,
  GenerateDataKeyCommand,
  IncorrectKeyException,
  InvalidCiphertextException,
  KeyUnavailableException,
  KMSClient,
  KMSInternalException,
  KMSServiceException,
  NotFoundException,
} from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { ApiError, ServiceUnavailableError } from '../../../../shared/platform/errors.ts';
import { makeKmsKeyProvider } from '../../../../shared/platform/crypto/kms-key-provider.ts';
import { KEY_ID, secretContext } from './support.ts';

const kmsMock = mockClient(KMSClient);
const KMS_MESSAGE = 'kms-said: arn:aws:kms:eu-west-1:111122223333:key/secret-detail';

function provider() {
  return makeKmsKeyProvider({ kms: new KMSClient({ region: 'eu-west-1' }), keyId: KEY_ID });
}

function bytes(length: number, fill: number): Uint8Array {
  return new Uint8Array(length).fill(fill);
}

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(Error);
  return outcome as Error;
}

/** An AWS error that KMS's model does not declare (throttling, access denied) but the service does send. */
function awsError(name: string): KMSServiceException {
  return new KMSServiceException({ name, $fault: 'client', message: KMS_MESSAGE, $metadata: {} });
}

describe('KMS key provider', () => {
  beforeEach(() => {
    kmsMock.reset();
  });
  afterEach(() => {
    kmsMock.reset();
  });

  it('asks GenerateDataKey for an AES_256 key under its key id and the given context', async () => {
    kmsMock.on(GenerateDataKeyCommand).resolves({ Plaintext: bytes(32, 7), CiphertextBlob: bytes(180, 9), KeyId: KEY_ID });
    const context = secretContext();

    const dataKey = await provider().generateDataKey(context);

    const calls = kmsMock.commandCalls(GenerateDataKeyCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({ KeyId: KEY_ID, KeySpec: 'AES_256', EncryptionContext: context });
    expect(dataKey.plaintext).toEqual(Buffer.from(bytes(32, 7)));
    expect(dataKey.encrypted).toEqual(Buffer.from(bytes(180, 9)));
  });

  it('asks Decrypt with its key id, the blob and the same context', async () => {
    kmsMock.on(DecryptCommand).resolves({ Plaintext: bytes(32, 5), KeyId: KEY_ID });
    const context = secretContext({ version: '3' });
    const blob = Buffer.from(bytes(180, 9));

    const plaintext = await provider().decryptDataKey(blob, context);

    const calls = kmsMock.commandCalls(DecryptCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({ KeyId: KEY_ID, CiphertextBlob: blob, EncryptionContext: context });
    expect(plaintext).toEqual(Buffer.from(bytes(32, 5)));
  });

  it("hands back the SDK's own plaintext bytes, so zeroing the key wipes the only copy", async () => {
    const fromKms = bytes(32, 5);
    kmsMock.on(DecryptCommand).resolves({ Plaintext: fromKms, KeyId: KEY_ID });

    const plaintext = await provider().decryptDataKey(Buffer.from(bytes(180, 9)), secretContext());
    plaintext.fill(0);

    expect(fromKms.every((byte) => byte === 0)).toBe(true);
  });

  it('turns throttling on either call into SERVICE_UNAVAILABLE without KMS message or key material', async () => {
    kmsMock.on(GenerateDataKeyCommand).rejects(awsError('ThrottlingException')).on(DecryptCommand).rejects(awsError('ThrottlingException'));
    const blob = Buffer.from(bytes(180, 0xab));

    const errors = [
      await rejection(provider().generateDataKey(secretContext())),
      await rejection(provider().decryptDataKey(blob, secretContext())),
    ];

    for (const error of errors) {
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).headers['Retry-After']).toBe('1');
      expect(error.message).not.toContain('kms-said');
      expect(error.message).not.toContain(blob.toString('base64'));
      expect(error.cause).toBeUndefined();
    }
  });

  it.each([
    ['KMSInternalException', () => new KMSInternalException({ message: KMS_MESSAGE, $metadata: {} })],
    ['KeyUnavailableException', () => new KeyUnavailableException({ message: KMS_MESSAGE, $metadata: {} })],
    ['DependencyTimeoutException', () => new DependencyTimeoutException({ message: KMS_MESSAGE, $metadata: {} })],
    ['a reset connection', () => Object.assign(new Error(KMS_MESSAGE), { code: 'ECONNRESET' })],
    ['a socket timeout', () => Object.assign(new Error(KMS_MESSAGE), { name: 'TimeoutError' })],
  ])('turns %s into SERVICE_UNAVAILABLE', async (_label, failure) => {
    kmsMock.on(DecryptCommand).rejects(failure());

    const error = await rejection(provider().decryptDataKey(Buffer.from(bytes(180, 1)), secretContext()));

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.message).not.toContain('kms-said');
  });

  it.each([
    ['InvalidCiphertextException', () => new InvalidCiphertextException({ message: KMS_MESSAGE, $metadata: {} })],
    ['IncorrectKeyException', () => new IncorrectKeyException({ message: KMS_MESSAGE, $metadata: {} })],
    ['AccessDeniedException', () => awsError('AccessDeniedException')],
  ])('turns %s on Decrypt into a plain 500 error with a fixed message', async (name, failure) => {
    kmsMock.on(DecryptCommand).rejects(failure());

    const error = await rejection(provider().decryptDataKey(Buffer.from(bytes(180, 1)), secretContext()));

    expect(error).not.toBeInstanceOf(ApiError);
    expect(error.message).toBe(`KMS refused to decrypt a data key (${name})`);
    expect(error.cause).toBeUndefined();
  });

  it('turns any other KMS failure into a plain error that names only the operation and the exception', async () => {
    kmsMock.on(GenerateDataKeyCommand).rejects(new NotFoundException({ message: KMS_MESSAGE, $metadata: {} }));

    const error = await rejection(provider().generateDataKey(secretContext()));

    expect(error).not.toBeInstanceOf(ApiError);
    expect(error.message).toBe('KMS GenerateDataKey failed (NotFoundException)');
  });

  it('refuses a response without a 32-byte plaintext and wipes what it got', async () => {
    const short = bytes(16, 3);
    kmsMock.on(GenerateDataKeyCommand).resolves({ Plaintext: short, CiphertextBlob: bytes(180, 9) });

    const error = await rejection(provider().generateDataKey(secretContext()));

    expect(error.message).toBe('KMS GenerateDataKey returned an unexpected response');
    expect(short.every((byte) => byte === 0)).toBe(true);
  });
});
