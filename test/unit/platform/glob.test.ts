import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatcher, globSteps } from '../../../shared/platform/glob.ts';

/**
 * The oracle: decisions.md's glob read straight off the pattern string, by a memoised recursion over (pattern
 * position, text position), nothing shared with the matcher (no tokens, no automaton). `**` is taken where two `*`
 * stand together, left to right, as the pattern is read.
 */
function reference(pattern: string, text: string): boolean {
  const memo = new Map<number, boolean>();
  const from = (p: number, t: number): boolean => {
    const id = p * (text.length + 1) + t;
    const known = memo.get(id);
    if (known !== undefined) return known;
    let answer: boolean;
    if (p === pattern.length) answer = t === text.length;
    else if (pattern.startsWith('**', p)) answer = from(p + 2, t) || (t < text.length && from(p, t + 1));
    else if (pattern[p] === '*') answer = from(p + 1, t) || (t < text.length && text[t] !== '/' && from(p, t + 1));
    else if (pattern[p] === '?') answer = t < text.length && text[t] !== '/' && from(p + 1, t + 1);
    else answer = t < text.length && text[t] === pattern[p] && from(p + 1, t + 1);
    memo.set(id, answer);
    return answer;
  };
  return from(0, 0);
}

const matches = (pattern: string, text: string) => globMatcher([pattern])(text);

/** Tokens as decisions.md counts them: `**`, `*`, `?` and each other character. */
function tokenCount(pattern: string): number {
  let count = 0;
  for (let i = 0; i < pattern.length; i++, count++) if (pattern.startsWith('**', i)) i++;
  return count;
}

describe('glob: what each wildcard matches', () => {
  it.each([
    // pattern, text, matches
    ['**', '', true],
    ['**', 'a/b/c', true],
    ['***', 'a/b', true],
    ['*', 'abc', true],
    ['*', 'a/b', false],
    ['*', '', true],
    ['a*', 'a', true],
    ['a*c', 'abc', true],
    ['a*c', 'ab/c', false],
    ['a**c', 'ab/c', true],
    ['a***c', 'a/b/c', true],
    ['?', 'a', true],
    ['?', '/', false],
    ['?', '', false],
    ['?', 'ab', false],
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false],
    ['repo:acme/app:ref:refs/heads/*', 'repo:acme/app:ref:refs/heads/main', true],
    ['repo:acme/app:ref:refs/heads/*', 'repo:acme/app:ref:refs/heads/feature/x', false],
    ['repo:acme/app:ref:refs/heads/**', 'repo:acme/app:ref:refs/heads/feature/x', true],
    ['a.b', 'a.b', true],
    ['a.b', 'axb', false],
    ['(x)+', '(x)+', true],
    ['(x)+', 'xx', false],
    ['[ab]', 'a', false],
    ['^$', '^$', true],
    ['a\\b', 'a\\b', true],
    ['**:**:**:x', 'a:b:c:x', true],
    ['*a*', 'bab', true],
    ['*a*', '', false],
    ['', '', true],
    ['', 'a', false],
    ['arn:aws:iam::123456789012:role/payments-*', 'arn:aws:iam::123456789012:role/payments-api', true],
    ['a*b*c', 'aXbYbZc', true],
    ['*/*', 'a/b', true],
    ['*/*', 'a/b/c', false],
    ['**/*', 'a/b/c', true],
    // The fixed ends must not overlap: "ab*ba" needs four units at least.
    ['ab*ba', 'aba', false],
    ['ab*ba', 'abba', true],
    ['ab**?', 'ab', false],
    ['?**?', 'a', false],
    ['?**?', 'ab', true],
    ['API_KEY', 'api_key', false],
    ['é*', 'été', true],
    ['?', '😀', false],
    ['??', '😀', true],
    ['*😀', 'x😀', true],
  ])('%j against %j: %s', (pattern, text, expected) => {
    // Act / Assess: the matcher answers as decisions.md says, and the oracle agrees (so it may judge the rest)
    expect(matches(pattern, text)).toBe(expected);
    expect(reference(pattern, text)).toBe(expected);
  });

  it('answers a list by any of its patterns: literals by a set, the others compiled, `**` for everything', () => {
    // Prepare
    const list = globMatcher(['DATABASE_URL', 'db/*', '**/APP_??', 'x?y']);
    // Act / Assess
    expect(['DATABASE_URL', 'db/url', 'db/a/b', 'svc/a/APP_1X', 'APP_12', 'x-y', 'other'].filter(list)).toEqual([
      'DATABASE_URL',
      'db/url',
      'svc/a/APP_1X',
      'x-y',
    ]);
    expect(globMatcher(['A', '**'])('a/b')).toBe(true);
    expect(globMatcher(['A', 'B'])('C')).toBe(false);
    expect(globMatcher([])('')).toBe(false);
  });
});

describe('glob: every pattern and text answer as the oracle does (fast-check, fixed seed)', () => {
  const pieces = ['a', 'b', '/', '.', '-', '\n', 'é', '\uD83D', '*', '*', '**', '?'];
  const units = ['a', 'b', '/', '.', '-', '\n', 'é', '\uD83D', '\uDE00', 'z'];
  const pattern = (minLength: number, maxLength: number) =>
    fc.array(fc.constantFrom(...pieces), { minLength, maxLength, size: 'max' }).map((p) => p.join(''));
  const filler = (slash: boolean) =>
    fc.array(fc.constantFrom(...units.filter((u) => slash || u !== '/')), { maxLength: 4 }).map((u) => u.join(''));
  /** A text made from the pattern (each wildcard replaced by what it may match), then perhaps one unit changed. */
  const textOf = (source: string) =>
    fc
      .tuple(
        fc.array(fc.tuple(filler(true), filler(false), fc.constantFrom(...units.filter((u) => u !== '/'))), {
          minLength: source.length,
          maxLength: source.length,
        }),
        fc.option(fc.tuple(fc.nat(), fc.constantFrom(...units))),
      )
      .map(([fills, change]) => {
        let i = 0;
        const text = source.replace(/\*\*|\*|\?/g, (w) => (w === '**' ? fills[i++]![0] : w === '*' ? fills[i++]![1] : fills[i++]![2]));
        if (!change || text.length === 0) return text;
        const at = change[0] % text.length;
        return text.slice(0, at) + change[1] + text.slice(at + 1);
      });
  const pair = (minLength: number, maxLength: number) =>
    pattern(minLength, maxLength).chain((p) =>
      fc.tuple(
        fc.constant(p),
        fc.oneof(
          textOf(p),
          fc.array(fc.constantFrom(...units), { maxLength: 24 }).map((u) => u.join('')),
        ),
      ),
    );

  it('short patterns (one state word)', () => {
    fc.assert(
      fc.property(pair(0, 12), ([p, text]) => matches(p, text) === reference(p, text) && globSteps(p, text).matched === reference(p, text)),
      { seed: 20_260_301, numRuns: 3000 },
    );
  });

  it('long patterns (more than 31 tokens between the fixed ends: several state words)', () => {
    fc.assert(
      fc.property(pair(40, 90), ([p, text]) => matches(p, text) === reference(p, text)),
      { seed: 20_260_302, numRuns: 1500 },
    );
  });

  it('lists of patterns: any of them', () => {
    fc.assert(
      fc.property(
        fc.array(pattern(0, 8), { minLength: 1, maxLength: 5 }),
        fc.array(fc.constantFrom(...units), { maxLength: 12 }),
        (list, text) => {
          const t = text.join('');
          return globMatcher(list)(t) === list.some((p) => reference(p, t));
        },
      ),
      { seed: 20_260_303, numRuns: 2000 },
    );
  });
});

describe('glob: linear in text × tokens (decisions.md, Hardening v1.3)', () => {
  // 20 wildcards, mixed, and more than 31 tokens between the fixed ends: the multi-word automaton.
  const WILDCARDS = ['**', '*', '?', '*', '**', '?', '*', '?', '**', '*', '?', '**', '*', '?', '*', '**', '?', '*', '?', '**'];
  const TWENTY = `${WILDCARDS.map((w) => `${w}-`).join('')}end`;

  it.each([
    ['fails where a ? meets a /', `${'/-'.repeat(126)}-end`, false],
    ['matches', `${'a-'.repeat(126)}end`.padStart(256, '-'), true],
    ['fails for too few separators', `${'a'.repeat(252)}-end`, false],
  ])('a 256-unit key that %s, against a pattern of 20 wildcards: within 256 × (tokens + 1) steps', (_name, key, expected) => {
    // Prepare
    expect(key).toHaveLength(256);
    expect(TWENTY.match(/\*\*|\*|\?/g)).toHaveLength(20);
    // Act
    const { matched, steps } = globSteps(TWENTY, key);
    // Assess: the answer is the oracle's, and the automaton stepped along the key without going back
    expect(matched).toBe(expected);
    expect(reference(TWENTY, key)).toBe(expected);
    expect(steps).toBeGreaterThan(0);
    expect(steps).toBeLessThanOrEqual(256 * (tokenCount(TWENTY) + 1));
  });

  it('answers **.**.**.**.pem on 255-unit keys (1.7 s each with a regular expression) within the bound', () => {
    const pattern = '**.**.**.**.pem';
    const bound = 255 * (tokenCount(pattern) + 1);
    for (const [key, expected] of [
      [`${'.'.repeat(251)}.pex`, false],
      [`${'a.'.repeat(127)}a`, false],
      [`${'a'.repeat(251)}.pem`, false],
      [`${'.'.repeat(251)}.pem`, true],
      [`${'a.'.repeat(125)}a.pem`, true],
    ] as const) {
      // Act
      const { matched, steps } = globSteps(pattern, key);
      // Assess
      expect(key).toHaveLength(255);
      expect(matched).toBe(expected);
      expect(steps).toBeLessThanOrEqual(bound);
    }
    // Where the suffix passes, the automaton runs over the key: one step a unit, the pattern's middle in one word.
    expect(globSteps(pattern, `${'a'.repeat(251)}.pem`).steps).toBe(251);
  });

  it('answers a pattern of many ** against a long text that fails at its end', () => {
    const text = `${'a:'.repeat(6000)}y`;
    expect(matches('**:**:**:**:x', text)).toBe(false);
    expect(matches('**:**:**:**:y', `${text.slice(0, -1)}:y`)).toBe(true);
    expect(globSteps('**:**:**:**:?', text).steps).toBeLessThanOrEqual(text.length * (tokenCount('**:**:**:**:?') + 1));
  });
});
