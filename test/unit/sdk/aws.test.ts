import { describe, expect, it } from 'vitest';
import { fromSecretsService } from '../../../sdk/src/aws.ts';
import { fakeApi, ok } from './fake-api.ts';

/** An API whose login answers temporary AWS credentials, as `format: "aws"` does; it records where it was called. */
function awsLoginApi() {
  const expiresAt = new Date(Date.now() + 900_000).toISOString();
  const credentials = { accessKeyId: 'ASIA_UNIT', secretAccessKey: 'secret-unit', sessionToken: 'st_1', expiration: expiresAt };
  return fakeApi({ login: () => ok({ token: 'st_1', expiresAt, accessKeyId: 'ak_1', identityId: 'mid_1', awsCredentials: credentials }) });
}

const provider = (baseUrl: string, fetch: typeof globalThis.fetch) =>
  fromSecretsService({ baseUrl, accessKeyId: 'ak_1', method: 'oidc', jwt: 'jwt-unit', fetch });

describe('fromSecretsService: the base URL rule of createClient (Hardening v1.4)', () => {
  it('refuses http:// to a host that is not loopback before any login, naming the rule and never the user info', () => {
    // Prepare
    const api = awsLoginApi();
    // Act
    const errors = ['http://example.com', 'http://user:hunter2@10.0.0.5:3000/x'].map((baseUrl) => {
      try {
        provider(baseUrl, api.fetch);
        return undefined;
      } catch (error) {
        return error as Error;
      }
    });
    // Assess
    expect(errors[0]).toBeInstanceOf(TypeError);
    expect(errors[0]?.message).toContain('refused base URL http://example.com');
    expect(errors[0]?.message).toContain('http:// is allowed only to a loopback host');
    expect(errors[1]).toBeInstanceOf(TypeError);
    expect(errors[1]?.message).not.toContain('hunter2');
    expect(api.logins).toEqual([]);
  });

  it.each(['http://127.0.0.1:3000', 'http://localhost:3000', 'https://secrets.example.com'])(
    'accepts %s and logs in there',
    async (baseUrl) => {
      // Prepare
      const api = awsLoginApi();
      // Act
      const identity = await provider(baseUrl, api.fetch)();
      // Assess
      expect(identity).toMatchObject({ accessKeyId: 'ASIA_UNIT', sessionToken: 'st_1' });
      expect(identity.expiration).toBeInstanceOf(Date);
      expect(api.logins).toHaveLength(1);
    },
  );
});
