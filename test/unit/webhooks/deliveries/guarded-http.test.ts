import { describe, expect, it } from 'vitest';
import type { Config } from '../../../../shared/platform/config.ts';
import { guardedHttpFromConfig } from '../../../../shared/webhooks/deliveries/guarded-http.ts';

const configWith = (allowPrivateCidrs: string | undefined) => ({ webhooks: { allowPrivateCidrs } }) as Config;

describe('the SSRF guard and the guarded sender, from one allow-list', () => {
  it("refuses a url that points to a private address, in the guard's words, without repeating the url", async () => {
    // Act
    const verdict = await guardedHttpFromConfig(configWith(undefined)).checkUrl('https://127.0.0.1:8443/hook?token=s3cr3t');
    // Assess
    expect(verdict).toEqual({ ok: false, reason: expect.stringMatching(/^points to a blocked address: 127\.0\.0\.1/) });
    expect(JSON.stringify(verdict)).not.toContain('s3cr3t');
  });

  it('takes an address the configured allow-list exempts, and answers only that it is fine', async () => {
    const verdict = await guardedHttpFromConfig(configWith('127.0.0.0/8')).checkUrl('https://127.0.0.1:8443/hook');
    expect(verdict).toEqual({ ok: true });
  });

  it('sends nothing to an address the allow-list does not exempt: the sender uses the same list', async () => {
    const result = await guardedHttpFromConfig(configWith(undefined)).send({ url: 'https://127.0.0.1:9/hook', body: '{}', headers: {} });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^blocked/) });
  });

  it('fails loudly on a malformed allow-list, when the function starts', () => {
    expect(() => guardedHttpFromConfig(configWith('not-a-cidr'))).toThrow();
  });
});
