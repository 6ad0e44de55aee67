import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.ts';
import { keyProviderFromConfig } from '../../shared/crypto/from-config.ts';

describe('loadConfig', () => {
  it('fails loudly without TABLE_NAME', () => {
    expect(() => loadConfig({})).toThrow(/TABLE_NAME/);
  });

  it('takes JWT settings all together or not at all, with workspace_id as the default claim', () => {
    expect(loadConfig({ TABLE_NAME: 't' }).jwt).toBeUndefined();
    expect(() => loadConfig({ TABLE_NAME: 't', JWT_ISSUER: 'https://idp/' })).toThrow(/together/);
    const config = loadConfig({ TABLE_NAME: 't', JWT_ISSUER: 'https://idp/', JWT_AUDIENCE: 'api', JWT_JWKS_URI: 'https://idp/jwks.json' });
    expect(config.jwt).toEqual({ issuer: 'https://idp/', audience: 'api', jwksUri: 'https://idp/jwks.json', workspaceClaim: 'workspace_id' });
  });

  it('names KMS or the local keyring, never both, and the key provider follows it', () => {
    expect(loadConfig({ TABLE_NAME: 't', KMS_KEY_ID: 'arn:aws:kms:k' }).encryption).toEqual({ kind: 'kms', keyId: 'arn:aws:kms:k' });
    expect(loadConfig({ TABLE_NAME: 't', LOCAL_KEYRING_FILE: '/tmp/k' }).encryption).toEqual({ kind: 'local', keyFile: '/tmp/k' });
    expect(() => loadConfig({ TABLE_NAME: 't', KMS_KEY_ID: 'k', LOCAL_KEYRING_FILE: '/tmp/k' })).toThrow(/not both/);
    expect(() => keyProviderFromConfig(loadConfig({ TABLE_NAME: 't' }))).toThrow(/KMS_KEY_ID/);
    expect(keyProviderFromConfig(loadConfig({ TABLE_NAME: 't', KMS_KEY_ID: 'k' }))).toHaveProperty('generateDataKey');
  });
});
