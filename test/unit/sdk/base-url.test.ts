import { describe, expect, it } from 'vitest';
import { createClient } from '../../../sdk/src/client.ts';

const client = (baseUrl: string) => createClient({ baseUrl, token: 't', fetch: async () => new Response('{}') });

describe('the base URL rule of createClient', () => {
  it('refuses http:// to a host that is not loopback, naming the rule and never the user info', () => {
    // Prepare
    const refused = [
      'http://example.com',
      'http://10.0.0.5:3000',
      'http://127.0.0.1.example.com',
      'http://localhost.example.com',
      'http://[::2]',
      'http://user:hunter2@example.com/x',
      'ftp://example.com',
    ];
    // Act
    const errors = refused.map((baseUrl) => {
      try {
        client(baseUrl);
        return undefined;
      } catch (error) {
        return error as Error;
      }
    });
    // Assess
    for (const [i, error] of errors.entries()) {
      expect(error, refused[i]).toBeInstanceOf(TypeError);
      expect(error?.message, refused[i]).toContain('http:// is allowed only to a loopback host');
    }
    expect(errors[0]?.message).toContain('refused base URL http://example.com');
    expect(errors[5]?.message).not.toContain('hunter2');
  });

  it('accepts https:// anywhere and http:// to 127.0.0.0/8, [::1] and localhost', () => {
    // Prepare
    const accepted = [
      'https://example.com',
      'https://api.example.com:8443/prefix/',
      'http://127.0.0.1:3000',
      'http://127.8.9.10',
      'http://localhost:3000',
      'http://LOCALHOST',
      'http://[::1]:3000',
      'http://2130706433',
    ];
    // Act
    const refused = accepted.filter((baseUrl) => {
      try {
        client(baseUrl);
        return false;
      } catch {
        return true;
      }
    });
    // Assess
    expect(refused).toEqual([]);
  });

  it('refuses a base URL that is not an absolute URL', () => {
    // Prepare / Act / Assess
    expect(() => client('api.example.com')).toThrow(/not an absolute URL/);
  });
});
