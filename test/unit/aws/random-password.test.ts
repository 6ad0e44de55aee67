import { describe, expect, it } from 'vitest';
import { randomPassword } from '../../../shared/platform/random-password.ts';

describe('random passwords (GetRandomPassword, rotation without a function)', () => {
  it('is 32 characters of the four classes by default, each class present', () => {
    for (let i = 0; i < 50; i++) {
      const password = randomPassword({});
      expect(password).toHaveLength(32);
      for (const klass of [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/]) expect(password).toMatch(klass);
      expect(password).not.toContain(' ');
    }
  });

  it('honours the length at 1 and 4096, the exclusions, a space, and RequireEachIncludedType', () => {
    expect(randomPassword({ length: 4096 })).toHaveLength(4096);
    expect(randomPassword({ length: 1, requireEachIncludedType: false })).toHaveLength(1);
    expect(randomPassword({ length: 64, excludePunctuation: true, excludeUppercase: true })).toMatch(/^[a-z0-9]{64}$/);
    expect(randomPassword({ length: 64, excludeCharacters: 'abcdefghijklmnopqrstuvwxyz' })).not.toMatch(/[a-z]/);
    expect(randomPassword({ length: 64, includeSpace: true })).toMatch(/ /);
  });

  it('refuses a length too short for one of each included type, and nothing left to draw from', () => {
    expect(() => randomPassword({ length: 3 })).toThrow(/at least 4/);
    expect(() =>
      randomPassword({ excludeLowercase: true, excludeUppercase: true, excludeNumbers: true, excludePunctuation: true }),
    ).toThrow(/at least one character/);
  });

  it('never holds `${`, which would open a secret reference: a `{` after a `$` is drawn again', () => {
    // Prepare: only `$`, `{`, `}` and `a` left, so 64 characters would hold `${` almost every time.
    const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
    const rules = {
      length: 64,
      excludeUppercase: true,
      excludeNumbers: true,
      excludeCharacters: 'bcdefghijklmnopqrstuvwxyz' + [...punctuation].filter((char) => !'${}'.includes(char)).join(''),
    };

    // Act
    const passwords = Array.from({ length: 200 }, () => randomPassword(rules));

    // Assess: each drawn from those four, both classes present, `$` and `{` still drawn, never `${`.
    for (const password of passwords) {
      expect(password).toMatch(/^[${}a]{64}$/);
      expect(password).toMatch(/a/);
      expect(password).not.toContain('${');
    }
    expect(passwords.join('')).toMatch(/\$/);
    expect(passwords.join('')).toMatch(/\{/);
  });
});
