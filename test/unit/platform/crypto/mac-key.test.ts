import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { makeAuthenticator } from '../../../../shared/access/authenticate.ts';
import { issueToken } from '../../../../shared/access/tokens.ts';
import type { EncryptionContext, KeyProvider } from '../../../../shared/platform/crypto/key-provider.ts';
import { makeLocalKeyring } from '../../../../shared/platform/crypto/local-keyring.ts';
import { deriveServiceMacs, ensureOperatorMacs, loadServiceMacs, MacKeyMissingError } from '../../../../shared/platform/crypto/mac-key.ts';
import type { MacKeyStore, SealedMacKey } from '../../../../shared/platform/store/mac-key-store.ts';
import { AuthRequiredError } from '../../../../shared/platform/errors.ts';

/** A real keyring (AES-GCM under a temporary master key) that records the contexts it was asked for. */
function keyring(): KeyProvider & { contexts: EncryptionContext[]; plaintexts: Buffer[] } {
  const inner = makeLocalKeyring({ keyFile: join(mkdtempSync(join(tmpdir(), 'mac-key-')), 'master.key') });
  const contexts: EncryptionContext[] = [];
  const plaintexts: Buffer[] = [];
  return {
    contexts,
    plaintexts,
    async generateDataKey(context) {
      contexts.push(context);
      const key = await inner.generateDataKey(context);
      plaintexts.push(Buffer.from(key.plaintext));
      return key;
    },
    async decryptDataKey(encrypted, context) {
      contexts.push(context);
      return inner.decryptDataKey(encrypted, context);
    },
  };
}

/** The table item, in memory: a conditional create, as shared/platform/store/mac-key-store.ts makes it. */
function memoryStore(): MacKeyStore & { saved: SealedMacKey[] } {
  const saved: SealedMacKey[] = [];
  return {
    saved,
    getMacKey: async () => saved[0],
    createMacKey: async (sealed) => (saved.length === 0 ? (saved.push(sealed), true) : false),
  };
}

describe('service MAC key', () => {
  it('is made once by an operator, stored only sealed, each root under its own purpose, and unsealed to the same MACs by a function', async () => {
    // Prepare
    const keys = keyring();
    const store = memoryStore();
    // Act
    const made = await ensureOperatorMacs(store, keys);
    const again = await ensureOperatorMacs(store, keys);
    const loaded = await loadServiceMacs(store, async () => keys);
    // Assess
    expect(store.saved).toHaveLength(1);
    for (const plaintext of keys.plaintexts) {
      expect(store.saved[0]!.service.includes(plaintext) || store.saved[0]!.token.includes(plaintext)).toBe(false);
    }
    const purposes = keys.contexts.map((context) => context.purpose);
    expect(purposes.slice(0, 2).sort()).toEqual(['service-mac-key', 'token-checksum-key']);
    expect(purposes.slice(2)).toEqual(['token-checksum-key', 'service-mac-key', 'token-checksum-key']);
    expect(again.mac('tokenChecksum', 'x')).toEqual(made.mac('tokenChecksum', 'x'));
    expect(loaded.mac('tokenChecksum', 'x')).toEqual(made.mac('tokenChecksum', 'x'));
  });

  it("gives an operator the token checksums only: the idempotency digests' root is never unsealed for them", async () => {
    // Prepare
    const keys = keyring();
    const store = memoryStore();
    // Act
    const operator = await ensureOperatorMacs(store, keys);
    const functions = await loadServiceMacs(store, async () => keys);
    // Assess
    expect(() => operator.mac('idempotencyRequest', 'x')).toThrow(/not unsealed here/);
    expect(() => operator.mac('idempotencyRecord', 'x')).toThrow(/not unsealed here/);
    expect(functions.mac('idempotencyRequest', 'x')).toHaveLength(32);
    expect(keys.contexts.filter((context) => context.purpose === 'service-mac-key')).toHaveLength(2);
  });

  it('agrees on the key another operator stored first', async () => {
    // Prepare: someone else's key lands between our read and our conditional put
    const keys = keyring();
    const store = memoryStore();
    const theirs = await ensureOperatorMacs(store, keys);
    const racing: MacKeyStore = {
      getMacKey: vi.fn().mockResolvedValueOnce(undefined).mockImplementation(store.getMacKey),
      createMacKey: store.createMacKey,
    };
    // Act
    const ours = await ensureOperatorMacs(racing, keys);
    // Assess
    expect(ours.mac('tokenChecksum', 'x')).toEqual(theirs.mac('tokenChecksum', 'x'));
  });

  it('is MacKeyMissingError when the table has none: the functions never make it', async () => {
    const store = memoryStore();
    await expect(loadServiceMacs(store, async () => keyring())).rejects.toBeInstanceOf(MacKeyMissingError);
    expect(store.saved).toHaveLength(0);
  });

  it('derives a key per purpose, zeroes the master key, and shows no key material', () => {
    // Prepare
    const master = Buffer.alloc(32, 0x5a);
    const token = Buffer.alloc(32, 0x6b);
    const masterHex = master.toString('hex');
    // Act
    const macs = deriveServiceMacs({ service: master, token });
    // Assess
    expect(master.equals(Buffer.alloc(32))).toBe(true);
    expect(token.equals(Buffer.alloc(32))).toBe(true);
    expect(macs.mac('tokenChecksum', 'x')).not.toEqual(macs.mac('idempotencyRequest', 'x'));
    expect(macs.mac('idempotencyRecord', 'x')).not.toEqual(macs.mac('idempotencyRequest', 'x'));
    const shown = `${JSON.stringify(macs)} ${inspect(macs, { depth: 10, showHidden: true })}`;
    expect(shown).not.toContain(masterHex);
    expect(shown).not.toMatch(/[0-9a-f]{64}/);
    expect(macs.verify('tokenChecksum', 'x', macs.mac('tokenChecksum', 'x').subarray(0, 6))).toBe(true);
    expect(macs.verify('tokenChecksum', 'x', macs.mac('tokenChecksum', 'y').subarray(0, 6))).toBe(false);
    expect(macs.verify('tokenChecksum', 'x', Buffer.alloc(0))).toBe(false);
  });

  it('refuses every issued token with AUTH_REQUIRED, and reads no credential, while the table has no MAC key', async () => {
    // Prepare
    const getCredentialContext = vi.fn();
    const authenticate = makeAuthenticator({
      store: { getCredentialContext, touchCredential: vi.fn() },
      clock: { now: () => Date.now() },
      macs: () => loadServiceMacs(memoryStore(), async () => keyring()),
    });
    const token = issueToken(deriveServiceMacs({ token: Buffer.alloc(32, 1) }), 'apiKey', 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0');
    // Act / Assess
    await expect(authenticate(`Bearer ${token}`)).rejects.toEqual(new AuthRequiredError('Authorization: the token is not valid'));
    expect(getCredentialContext).not.toHaveBeenCalled();
  });
});
