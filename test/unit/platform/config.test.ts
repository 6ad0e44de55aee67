import { describe, expect, it } from 'vitest';
import { loadConfig, requiredSetting } from '../../../shared/platform/config.ts';
import { keyProviderFromConfig } from '../../../shared/platform/crypto/key-provider-from-config.ts';
import { cipherOnFirstUse } from '../../../shared/platform/crypto/cipher-on-first-use.ts';

describe('loadConfig', () => {
  it('fails loudly without TABLE_NAME', () => {
    expect(() => loadConfig({})).toThrow(/TABLE_NAME/);
  });

  it('names every variable that breaks its rule, and the rule, in one message', () => {
    // Act
    const failure = () =>
      loadConfig({
        TABLE_NAME: 't',
        DYNAMODB_ENDPOINT: 'x',
        REVEAL_RATE_LIMIT_PER_MINUTE: '1.5',
        WEBHOOK_TIME_SCALE: '0',
        KMS_KEY_ID: ' ',
      });
    // Assess
    expect(failure).toThrow(
      'Invalid configuration: DYNAMODB_ENDPOINT: must be a URL; REVEAL_RATE_LIMIT_PER_MINUTE: must be an integer from 1 to 1000000; ' +
        'KMS_KEY_ID: must not be empty; WEBHOOK_TIME_SCALE: must be a number above 0 and at most 1',
    );
    expect(() => loadConfig({ TABLE_NAME: '' })).toThrow('Invalid configuration: TABLE_NAME: must not be empty');
    expect(() => loadConfig({ TABLE_NAME: 't', SQS_ENDPOINT: 'http://' })).toThrow('SQS_ENDPOINT: must be a URL');
  });

  it('reads numbers, URLs and trimmed strings as the zod schema did, with its defaults', () => {
    // Act
    const defaults = loadConfig({ TABLE_NAME: 't' });
    const set = loadConfig({
      TABLE_NAME: 't',
      REVEAL_RATE_LIMIT_PER_MINUTE: ' 12 ',
      WEBHOOK_TIME_SCALE: '0.01',
      WEBHOOK_SWEEP_GRACE_SECONDS: '60',
      SQS_ENDPOINT: ' http://localhost:9324 ',
      DELIVERY_QUEUE_URL: ' https://sqs/q ',
    });
    // Assess
    expect(defaults).toMatchObject({
      serviceName: 'secrets-service',
      revealsPerMinute: 120,
      workspaceRevealsPerMinute: 1200,
      webhooks: { timeScale: 1, sweepGraceMs: 300_000 },
    });
    expect(set).toMatchObject({
      revealsPerMinute: 12,
      workspaceRevealsPerMinute: 120,
      webhooks: { timeScale: 0.01, sweepGraceMs: 60_000, sqsEndpoint: 'http://localhost:9324', queueUrl: 'https://sqs/q' },
    });
  });

  it('takes JWT settings all together or not at all, with workspace_id, roles and viewer as the defaults', () => {
    expect(loadConfig({ TABLE_NAME: 't' }).jwt).toBeUndefined();
    expect(() => loadConfig({ TABLE_NAME: 't', JWT_ISSUER: 'https://idp/' })).toThrow(/together/);
    const config = loadConfig({ TABLE_NAME: 't', JWT_ISSUER: 'https://idp/', JWT_AUDIENCE: 'api', JWT_JWKS_URI: 'https://idp/jwks.json' });
    expect(config.jwt).toEqual({
      issuer: 'https://idp/',
      audience: 'api',
      jwksUri: 'https://idp/jwks.json',
      workspaceClaim: 'workspace_id',
      roleClaim: 'roles',
      defaultRole: 'viewer',
    });
    const roles = loadConfig({
      TABLE_NAME: 't',
      JWT_ISSUER: 'https://idp/',
      JWT_AUDIENCE: 'api',
      JWT_JWKS_URI: 'https://idp/jwks.json',
      JWT_ROLE_CLAIM: 'groups',
      JWT_DEFAULT_ROLE: 'developer',
    });
    expect(roles.jwt).toMatchObject({ roleClaim: 'groups', defaultRole: 'developer' });
    expect(() => loadConfig({ TABLE_NAME: 't', JWT_DEFAULT_ROLE: 'owner' })).toThrow(
      'JWT_DEFAULT_ROLE: must be one of viewer, developer, admin',
    );
  });

  it('refuses a JWKS URL that is not https, which the verifier could never fetch', () => {
    expect(() =>
      loadConfig({ TABLE_NAME: 't', JWT_ISSUER: 'https://idp/', JWT_AUDIENCE: 'api', JWT_JWKS_URI: 'http://idp/jwks.json' }),
    ).toThrow(/JWT_JWKS_URI.*https/);
    expect(
      loadConfig({ TABLE_NAME: 't', JWT_ISSUER: 'https://idp/', JWT_AUDIENCE: 'api', JWT_JWKS_URI: ' HTTPS://idp/jwks.json' }).jwt?.jwksUri,
    ).toBe('HTTPS://idp/jwks.json');
  });

  it('names KMS or the local keyring, never both, and the key provider follows it', () => {
    expect(loadConfig({ TABLE_NAME: 't', KMS_KEY_ID: 'arn:aws:kms:k' }).encryption).toEqual({ kind: 'kms', keyId: 'arn:aws:kms:k' });
    expect(loadConfig({ TABLE_NAME: 't', LOCAL_KEYRING_FILE: '/tmp/k' }).encryption).toEqual({ kind: 'local', keyFile: '/tmp/k' });
    expect(() => loadConfig({ TABLE_NAME: 't', KMS_KEY_ID: 'k', LOCAL_KEYRING_FILE: '/tmp/k' })).toThrow(/not both/);
    expect(() => keyProviderFromConfig(loadConfig({ TABLE_NAME: 't' }))).toThrow(/KMS_KEY_ID/);
    expect(keyProviderFromConfig(loadConfig({ TABLE_NAME: 't', KMS_KEY_ID: 'k' }))).toHaveProperty('generateDataKey');
    // The API functions' cipher, made on the first value, still refuses a missing key at cold start
    expect(() => cipherOnFirstUse(loadConfig({ TABLE_NAME: 't' }), 10)).toThrow(/KMS_KEY_ID/);
    expect(cipherOnFirstUse(loadConfig({ TABLE_NAME: 't', KMS_KEY_ID: 'k' }), 10)).toHaveProperty('decrypt');
  });

  it('refuses a webhook function without its queue at cold start, naming the variable', () => {
    expect(() => requiredSetting(undefined, 'DELIVERY_QUEUE_URL')).toThrow(
      'Invalid configuration: DELIVERY_QUEUE_URL is required for webhook delivery',
    );
    expect(() => requiredSetting('', 'DELIVERY_QUEUE_URL')).toThrow(/DELIVERY_QUEUE_URL/);
    expect(requiredSetting('https://sqs.example/q', 'DELIVERY_QUEUE_URL')).toBe('https://sqs.example/q');
  });
});
