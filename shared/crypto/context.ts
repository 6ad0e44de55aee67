import type { EncryptionContext } from './key-provider.ts';

/**
 * The one byte form of a context that goes into AES-GCM as AAD. Keys are sorted so that the order in which a caller
 * built the object does not matter, and JSON quoting makes the form unambiguous (`{a: 'b,c'}` never equals
 * `{a: 'b', c: ''}`), which a plain `k=v,` join would not guarantee.
 */
export function canonicalContext(context: EncryptionContext): Buffer {
  const entries = Object.keys(context)
    .sort()
    .map((key) => {
      const value = context[key];
      // The type says string, but a number here would silently change the bytes between writer and reader.
      if (typeof value !== 'string') throw new TypeError(`Encryption context value "${key}" must be a string`);
      return [key, value];
    });
  return Buffer.from(JSON.stringify(entries), 'utf8');
}
