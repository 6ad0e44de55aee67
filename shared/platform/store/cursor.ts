import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { ValidationError } from '../errors.ts';

/** Opaque, tamper-evident pagination cursors bound to one list (its scope). */
export interface CursorCodec {
  encode(scope: string, key: Record<string, unknown>): string;
  /** The start key of a cursor made for `scope`; VALIDATION_ERROR for anything altered or made elsewhere. */
  decode(scope: string, cursor: string): Record<string, unknown>;
  reject(): never;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Codecs by signing key: the sealing key is derived once per container, not per cursor. */
const codecs = new WeakMap<Buffer, CursorCodec>();

/**
 * Cursors are `base64url(nonce | ciphertext).base64url(tag)`: the position sealed with AES-256-GCM, the scope (list
 * kind, workspace, parent and filters) as associated data. So a cursor cannot be edited, nor replayed against
 * another list or workspace, and it tells nothing of where it points: a page of a list filtered by the caller's
 * permissions may stop after an item the caller may not see, and its cursor must not name that item's key. The
 * sealing key is derived from the signing key, which must already be loaded (see `makeCursorKeyLoader`).
 */
export function makeCursorCodec(signingKey: Buffer): CursorCodec {
  const known = codecs.get(signingKey);
  if (known) return known;
  const key = createHmac('sha256', signingKey).update('cursor-seal-v1').digest();
  const reject = (): never => {
    throw new ValidationError('cursor: is not a valid cursor for this list');
  };
  const codec: CursorCodec = {
    reject,
    encode(scope, position) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(Buffer.from(scope));
      const sealed = Buffer.concat([nonce, cipher.update(JSON.stringify(position), 'utf8'), cipher.final()]);
      return `${sealed.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
    },
    decode(scope, cursor) {
      const [body, tag, extra] = cursor.split('.');
      if (!body || !tag || extra !== undefined) return reject();
      const [sealed, given] = [Buffer.from(body, 'base64url'), Buffer.from(tag, 'base64url')];
      // Base64 is malleable in its padding bits: only the canonical spelling of each part is accepted.
      if (sealed.toString('base64url') !== body || given.toString('base64url') !== tag) return reject();
      if (sealed.length <= NONCE_BYTES || given.length !== TAG_BYTES) return reject();
      let text: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES }).setAAD(
          Buffer.from(scope),
        );
        decipher.setAuthTag(given);
        text = Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return reject();
      }
      const position: unknown = JSON.parse(text);
      if (!position || typeof position !== 'object' || Array.isArray(position)) return reject();
      return position as Record<string, unknown>;
    },
  };
  codecs.set(signingKey, codec);
  return codec;
}
