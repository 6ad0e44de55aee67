import { describe, expect, it } from 'vitest';
import { randomPassword } from '../../../shared/aws/random-password.ts';

describe('GetRandomPassword', () => {
  it('is 32 characters of the four classes by default, each class present', () => {
    for (let i = 0; i < 50; i++) {
      const password = randomPassword({});
      expect(password).toHaveLength(32);
      for (const klass of [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/]) expect(password).toMatch(klass);
      expect(password).not.toContain(' ');
    }
  });

  it('honours the length at 1 and 4096, the exclusions, a space, and RequireEachIncludedType', () => {
    expect(randomPassword({ PasswordLength: 4096 })).toHaveLength(4096);
    expect(randomPassword({ PasswordLength: 1, RequireEachIncludedType: false })).toHaveLength(1);
    expect(randomPassword({ PasswordLength: 64, ExcludePunctuation: true, ExcludeUppercase: true })).toMatch(/^[a-z0-9]{64}$/);
    expect(randomPassword({ PasswordLength: 64, ExcludeCharacters: 'abcdefghijklmnopqrstuvwxyz' })).not.toMatch(/[a-z]/);
    expect(randomPassword({ PasswordLength: 64, IncludeSpace: true })).toMatch(/ /);
  });

  it('refuses a length too short for one of each included type, and nothing left to draw from', () => {
    expect(() => randomPassword({ PasswordLength: 3 })).toThrow(/at least 4/);
    expect(() =>
      randomPassword({ ExcludeLowercase: true, ExcludeUppercase: true, ExcludeNumbers: true, ExcludePunctuation: true }),
    ).toThrow(/at least one character/);
  });
});
