import { afterEach, describe, expect, it, vi } from 'vitest';

/** What an API function's environment holds: the table, the key and a JWT issuer whose tokens carry roles. */
const JWT_ENVIRONMENT = {
  TABLE_NAME: 'secrets-test',
  KMS_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/test',
  JWT_ISSUER: 'https://idp.example.com/',
  JWT_AUDIENCE: 'secrets-api',
  JWT_JWKS_URI: 'https://idp.example.com/.well-known/jwks.json',
  JWT_ROLE_CLAIM: 'custom:role',
};

/** Every setting read here, so that the shell's own cannot change the outcome. */
const READ = [
  'TABLE_NAME',
  'KMS_KEY_ID',
  'LOCAL_KEYRING_FILE',
  'DYNAMODB_ENDPOINT',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWT_JWKS_URI',
  'JWT_ROLE_CLAIM',
  'JWT_REQUIRED_TYPE',
  'JWT_WORKSPACE_CLAIM',
  'JWT_DEFAULT_ROLE',
];

/**
 * A cold start of an API function in `env`: fresh modules (the runtime and the logger are made once per container),
 * apiRuntime() asked for twice as two handler modules of one process (the local stack) would, and the JSON lines
 * written to stderr meanwhile.
 */
async function coldStart(env: Record<string, string>): Promise<Record<string, unknown>[]> {
  vi.resetModules();
  for (const name of READ) vi.stubEnv(name, undefined);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  // The unit project logs errors only; the warning is WARN.
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'WARN');
  const written: string[] = [];
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
  try {
    const { apiRuntime } = await import('../../shared/access/api-runtime.ts');
    apiRuntime();
    apiRuntime();
  } finally {
    stderr.mockRestore();
  }
  return written
    .flatMap((text) => text.split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const isRoleClaimWarning = (line: Record<string, unknown>) => String(line.message).includes('JWT_ROLE_CLAIM');

describe('the cold-start warning about the role claim', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('is logged once when the JWT settings are on and JWT_REQUIRED_TYPE is not set, naming both settings and why', async () => {
    // Act
    const lines = await coldStart(JWT_ENVIRONMENT);
    // Assess
    const warnings = lines.filter(isRoleClaimWarning);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      level: 'WARN',
      message: 'JWT_ROLE_CLAIM is read without JWT_REQUIRED_TYPE',
      roleClaim: 'custom:role',
      reason: expect.stringMatching(/ID tokens.*custom:.*only the IdP sets.*JWT_REQUIRED_TYPE \(e\.g\. at\+jwt\)/),
    });
  });

  it('is logged when the role claim is the default one, since the claim is read all the same', async () => {
    // Prepare
    const { JWT_ROLE_CLAIM: _set, ...withDefaultClaim } = JWT_ENVIRONMENT;
    // Act
    const lines = await coldStart(withDefaultClaim);
    // Assess
    expect(lines.filter(isRoleClaimWarning)).toMatchObject([{ roleClaim: 'roles' }]);
  });

  it('is not logged when JWT_REQUIRED_TYPE is set', async () => {
    // Act
    const lines = await coldStart({ ...JWT_ENVIRONMENT, JWT_REQUIRED_TYPE: 'at+jwt' });
    // Assess
    expect(lines.filter(isRoleClaimWarning)).toEqual([]);
  });

  it('is not logged without the JWT settings: no JWT is accepted, so no role claim is read', async () => {
    // Prepare
    const { TABLE_NAME, KMS_KEY_ID } = JWT_ENVIRONMENT;
    // Act
    const lines = await coldStart({ TABLE_NAME, KMS_KEY_ID });
    // Assess
    expect(lines.filter(isRoleClaimWarning)).toEqual([]);
  });
});
