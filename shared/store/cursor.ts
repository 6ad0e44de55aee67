import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors.ts';

/** Opaque, tamper-evident pagination cursors bound to one list (its scope). */
export interface CursorCodec {
  encode(scope: string, key: Record<string, unknown>): string;
  /** The start key of a cursor made for `scope`; VALIDATION_ERROR for anything altered or made elsewhere. */
  decode(scope: string, cursor: string): Record<string, unknown>;
  reject(): never;
}

/**
 * Cursors are `base64url(json).base64url(hmac)`; the HMAC covers the scope (list kind, workspace, parent and
 * filters) as well as the position, so a cursor cannot be edited, nor replayed against another list or workspace.
 * The signing key must already be loaded (see `makeCursorKeyLoader`).
 */
export function makeCursorCodec(signingKey: Buffer): CursorCodec {
  const sign = (scope: string, body: string) => createHmac('sha256', signingKey).update(`${scope}\n${body}`).digest();
  const reject = (): never => {
    throw new ValidationError('cursor: is not a valid cursor for this list');
  };
  return {
    reject,
    encode(scope, key) {
      const body = Buffer.from(JSON.stringify(key)).toString('base64url');
      return `${body}.${sign(scope, body).toString('base64url')}`;
    },
    decode(scope, cursor) {
      const [body, mac, extra] = cursor.split('.');
      if (!body || !mac || extra !== undefined) return reject();
      const expected = sign(scope, body);
      const given = Buffer.from(mac, 'base64url');
      // Base64 is malleable in its padding bits: only the canonical spelling of the MAC is accepted.
      if (given.length !== expected.length || given.toString('base64url') !== mac || !timingSafeEqual(given, expected)) return reject();
      const key: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      if (!key || typeof key !== 'object' || Array.isArray(key)) return reject();
      return key as Record<string, unknown>;
    },
  };
}
