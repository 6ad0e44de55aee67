import { createCipheriv, createDecipheriv, generateKeyPairSync, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { canonicalContext } from './context.ts';
import type { DataKey, EncryptionContext, KeyProvider } from './key-provider.ts';
import { announceStandInCall } from '../clients/hooks.ts';
import { loadOnce } from '../on-first-use.ts';

/**
 * Wrapped data key format, version 1 (61 bytes):
 *
 *   version (1 byte, 0x01) | iv (12 bytes) | GCM tag (16 bytes) | ciphertext of the data key (32 bytes)
 *
 * AES-256-GCM under the master key, AAD = canonicalContext(context). The version byte leaves room for another
 * format without guessing; it is checked, not authenticated, because any other value is simply refused.
 */
const FORMAT_VERSION = 0x01;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const WRAPPED_BYTES = 1 + IV_BYTES + TAG_BYTES + KEY_BYTES;

/** The master key's file name in the local stack's folder (LOCAL_DIR), which the admin CLI finds beside stack.json. */
export const LOCAL_MASTER_KEY_FILE = 'master.key';

const UNWRAP_FAILED = 'The local keyring could not decrypt a data key';

/**
 * The local stack's stand-in for KMS: the same contract as the KMS provider, with a 32-byte master key kept in a
 * file instead of an HSM. The file is made on first use (mode 0600) and reused after a restart, so secrets written
 * by an earlier run still decrypt. For development only: whoever can read the file can read every local secret.
 */
export function makeLocalKeyring(options: { keyFile: string }): KeyProvider {
  const masterKey = loadOnce(() => loadOrCreateMasterKey(options.keyFile));
  return {
    async generateDataKey(context: EncryptionContext): Promise<DataKey> {
      const master = await masterKey();
      announceStandInCall('KMS', 'GenerateDataKey');
      const plaintext = randomBytes(KEY_BYTES);
      return { plaintext, encrypted: wrap(master, plaintext, context) };
    },
    async decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
      announceStandInCall('KMS', 'Decrypt');
      return unwrap(await masterKey(), encrypted, context);
    },
  };
}

/** Encrypts a data key under the master key in the version 1 format. */
function wrap(master: Buffer, dataKey: Buffer, context: EncryptionContext): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', master, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(canonicalContext(context));
  const body = Buffer.concat([cipher.update(dataKey), cipher.final()]);
  return Buffer.concat([Buffer.of(FORMAT_VERSION), iv, cipher.getAuthTag(), body]);
}

/** Decrypts a version 1 wrapped data key; a wrong context, wrong master key or any tampering is one fixed error. */
function unwrap(master: Buffer, encrypted: Buffer, context: EncryptionContext): Buffer {
  if (encrypted.length !== WRAPPED_BYTES || encrypted[0] !== FORMAT_VERSION) throw new Error(UNWRAP_FAILED);
  const iv = encrypted.subarray(1, 1 + IV_BYTES);
  const tag = encrypted.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const body = encrypted.subarray(1 + IV_BYTES + TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', master, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(canonicalContext(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    // OpenSSL's message says nothing useful ("Unsupported state or unable to authenticate data"); one fixed
    // message for a wrong context and for tampering alike gives an attacker no oracle either.
    throw new Error(UNWRAP_FAILED);
  }
}

/**
 * Reads the master key, or makes it (createOnce: a second process that races this one uses the first one's key).
 */
export async function loadOrCreateMasterKey(keyFile: string): Promise<Buffer> {
  const existing = await readKeyFile(keyFile);
  if (existing) return existing;
  const key = randomBytes(KEY_BYTES);
  if (await createOnce(keyFile, key)) return key;
  key.fill(0);
  const winner = await readKeyFile(keyFile);
  if (!winner) throw new Error(`The local master key file ${keyFile} vanished while it was being created`);
  return winner;
}

/**
 * Writes a new key file unless one exists, and answers whether this call wrote it. The key is written to a private
 * temporary file and then hard-linked into place: the link fails if another process got there first, and a reader
 * never sees a half-written file.
 */
async function createOnce(file: string, contents: Buffer): Promise<boolean> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, contents, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, file);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await unlink(temporary);
  }
}

/** The file of the local stand-in for the audit digests' KMS signing key, beside the master key in LOCAL_DIR. */
export const LOCAL_DIGEST_KEY_FILE = 'audit-signing-key.pem';

/**
 * The local keyring's P-256 key that signs audit digests (as KMS's ECC_NIST_P256 key does on AWS), PKCS#8 PEM: read
 * from `keyFile`, or made once and kept there (mode 0600), so digests signed before a restart still verify after it.
 * A key of its own, not derived from the master key: the two do different jobs and either can be replaced alone.
 */
export async function loadOrCreateDigestSigningKey(keyFile: string): Promise<string> {
  const existing = await readFile(keyFile, 'utf8').catch((error: { code?: string }) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) return existing;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // A process that raced this one made its key first: that one is the key.
  if (await createOnce(keyFile, Buffer.from(pem, 'utf8'))) return pem;
  return readFile(keyFile, 'utf8');
}

/** The master key in `keyFile`, undefined if there is no file; a file of the wrong size is refused, not replaced. */
async function readKeyFile(keyFile: string): Promise<Buffer | undefined> {
  let key: Buffer;
  try {
    key = await readFile(keyFile);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  // Replacing a damaged key would silently orphan every secret it wrapped; stopping is the safer failure.
  if (key.length !== KEY_BYTES) throw new Error(`The local master key file ${keyFile} is not ${KEY_BYTES} bytes long`);
  return key;
}
