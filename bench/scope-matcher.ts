import { globSteps } from '../shared/platform/glob.ts';
import { compilePolicy, withDefaults } from '../shared/access/access-policy.ts';
import { median, round3 } from './cpu-passes.ts';

/**
 * What one decision costs when it has to match (decisions.md, "Hardening v1.3": a 256-character key against a
 * pattern of 20 wildcards well under a millisecond): CPU µs per `allows` of a freshly compiled policy over keys it
 * has not decided yet (each key distinct, so its decision cache never answers), in this process. The worst patterns
 * of a backtracking matcher beside ordinary ones.
 */

/** 20 wildcards, `*`, `**` and `?` mixed, each before a `-`: more than 31 tokens, so the multi-word automaton. */
const TWENTY_WILDCARDS = `${['**', '*', '?', '*', '**', '?', '*', '?', '**', '*', '?', '**', '*', '?', '*', '**', '?', '*', '?', '**'].map((w) => `${w}-`).join('')}end`;
/** The pattern that took 1.7 s per decision as a regular expression, on a 255-character key. */
const PEM = '**.**.**.**.pem';
/** A list of 20 patterns as bench/scope-rules.ts's rules have them. */
const TWENTY_PATTERNS = Array.from({ length: 20 }, (_, j) => (j % 2 ? `TEAM_1_${j}_*` : `**/APP_1_${j}_??`));

/** Three letters that make key `i` distinct from the others (the matched parts of each key stay as they are). */
const tag = (i: number) => [0, 1, 2].map((d) => String.fromCharCode(97 + (Math.floor(i / 26 ** d) % 26))).join('');

interface Case {
  what: string;
  patterns: string[];
  key: (i: number) => string;
  matches: boolean;
}

const CASES: Case[] = [
  {
    what: '20 wildcards, 256-character key, matching',
    patterns: [TWENTY_WILDCARDS],
    key: (i) => `-${[...tag(i)].map((c) => `${c}-`).join('')}${'a-'.repeat(123)}end`,
    matches: true,
  },
  {
    what: '20 wildcards, 256-character key, not matching',
    patterns: [TWENTY_WILDCARDS],
    key: (i) => `${tag(i)}${'a'.repeat(249)}-end`,
    matches: false,
  },
  {
    what: '**.**.**.**.pem, 255-character key, not matching',
    patterns: [PEM],
    key: (i) => `${tag(i)}${'a'.repeat(248)}.pem`,
    matches: false,
  },
  {
    what: '**.**.**.**.pem, 255-character key of dots, not matching',
    patterns: [PEM],
    key: (i) => `${tag(i)}${'.'.repeat(248)}.pex`,
    matches: false,
  },
  { what: 'TEAM_*, ordinary key, not matching', patterns: ['TEAM_1_3_*'], key: (i) => `DATABASE_URL_${tag(i)}`, matches: false },
  { what: 'TEAM_*, ordinary key, matching', patterns: ['TEAM_1_3_*'], key: (i) => `TEAM_1_3_DB_${tag(i)}`, matches: true },
  {
    what: 'a list of 20 patterns, ordinary key, not matching',
    patterns: TWENTY_PATTERNS,
    key: (i) => `DATABASE_URL_${tag(i)}`,
    matches: false,
  },
  {
    what: 'a list of 20 patterns, ordinary key, matching the last',
    patterns: TWENTY_PATTERNS,
    key: (i) => `svc/${tag(i)}/APP_1_18_XY`,
    matches: true,
  },
];

export interface MatcherFigure {
  what: string;
  patterns: number;
  keyLength: number;
  /** The matcher's steps on the first key (shared/platform/glob.ts's `globSteps`) for the list's last pattern. */
  steps: number;
  usPerDecision: number;
}

/** CPU µs per decision of each case: the median over `rounds` fresh policies of `keys` distinct keys each. */
export function measureMatcher(keys = 4000, rounds = 9): MatcherFigure[] {
  return CASES.map((c) => {
    const texts = Array.from({ length: keys }, (_, i) => c.key(i));
    const samples: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const policy = compilePolicy([withDefaults({ keys: c.patterns, actions: ['reveal'] })]);
      let allowed = 0;
      const start = process.cpuUsage();
      for (const key of texts) if (policy.allows('reveal', { project: 'p', environment: 'e', key })) allowed++;
      const used = process.cpuUsage(start);
      if (allowed !== (c.matches ? keys : 0)) throw new Error(`matcher bench: ${c.what} allowed ${allowed} of ${keys}`);
      samples.push((used.user + used.system) / keys);
    }
    const steps = globSteps(c.patterns.at(-1)!, texts[0]!).steps;
    return { what: c.what, patterns: c.patterns.length, keyLength: texts[0]!.length, steps, usPerDecision: round3(median(samples)) };
  });
}
