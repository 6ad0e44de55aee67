import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../../../shared/webhooks/endpoints/redact-url.ts';

describe('redactUrl', () => {
  it.each([
    ['https://hooks.example.com/path?token=abc', 'https://hooks.example.com/path?…'],
    ['https://user:pw@hooks.example.com:8443/a/b?x=1#frag', 'https://hooks.example.com:8443/a/b?…#…'],
    ['https://hooks.example.com/a?', 'https://hooks.example.com/a?…'],
    ['https://hooks.example.com', 'https://hooks.example.com/'],
    ['https://hooks.example.com/plain', 'https://hooks.example.com/plain'],
    ['not a url ?token=abc', '…'],
  ])('shows %s as %s', (raw, shown) => {
    expect(redactUrl(raw)).toBe(shown);
  });
});
