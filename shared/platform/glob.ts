/**
 * The glob of permissions and logins (decisions.md, "Permissions of access keys", "Workload identity", "Hardening
 * v1.3"): `*` is any run of characters without `/`, `**` any run, `?` one character other than `/`, every other
 * character itself; matched against the whole string, case-sensitive, UTF-16 unit by unit. One matcher serves keys,
 * projects, environments, ARNs, subjects and syncs' key patterns (a lower layer, so every feature reaches it). A pattern is compiled once: its fixed ends (characters and `?`) are
 * compared in place, and what lies between them runs as a bit-parallel automaton (one bit per pattern position, all
 * positions stepped at once per character), so a text costs at most its length times the automaton's state words,
 * whatever the pattern: nothing backtracks, and no regular expression is on the path.
 */

const SLASH = 0x2f;
const QUESTION = 0x3f;
const ASTERISK = 0x2a;
/** Tokens: a UTF-16 unit stands for itself (≥ 0); the wildcards are negative, the wider the lower. */
const ONE = -1;
const STAR = -2;
const ANY = -3;
/** Units with a row of their own in an automaton's table; any other unit is looked up in a map. */
const TABLE_UNITS = 128;

/**
 * What a compiled pattern answers for a text: the steps it took (≥ 0) when the text matches, −steps − 1 when it does
 * not. One number, so the matcher and the step count are the same code and nothing is allocated per call.
 */
type GlobRun = (text: string) => number;
/** The same for the text's units `from` to `to` (the middle between the fixed ends). */
type MiddleRun = (text: string, from: number, to: number) => number;

/** Whether a pattern has no wildcard (then it matches itself alone: a set lookup). */
export const isLiteralGlob = (pattern: string) => !pattern.includes('*') && !pattern.includes('?');

/** The pattern's tokens; a run of `*` and `**` is one token, the widest of them (it matches the same texts). */
function tokenize(pattern: string): number[] {
  const tokens: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const unit = pattern.charCodeAt(i);
    let token = unit === QUESTION ? ONE : unit;
    if (unit === ASTERISK) {
      token = pattern.charCodeAt(i + 1) === ASTERISK ? ANY : STAR;
      if (token === ANY) i++;
    }
    const last = tokens.length - 1;
    if (token <= STAR && last >= 0 && tokens[last]! <= STAR) tokens[last] = Math.min(tokens[last]!, token);
    else tokens.push(token);
  }
  return tokens;
}

/** Whether the fixed tokens (units and `?`, one unit each: a pattern's end) match the text from `at` on. */
function fixedAt(tokens: Int32Array, text: string, at: number): boolean {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const unit = text.charCodeAt(at + i);
    if (token === ONE ? unit === SLASH : token !== unit) return false;
  }
  return true;
}

/** Where the middle ends when the text starts with `prefix` and ends with `suffix`, the two apart; else −1. */
function middleEnd(prefix: Int32Array, suffix: Int32Array, text: string): number {
  const to = text.length - suffix.length;
  return to >= prefix.length && fixedAt(prefix, text, 0) && fixedAt(suffix, text, to) ? to : -1;
}

/** A middle of `*` alone: no `/` in it. */
const segmentRun: MiddleRun = (text, from, to) => {
  for (let at = from; at < to; at++) if (text.charCodeAt(at) === SLASH) return from - at - 2;
  return to - from;
};

/** The automaton's masks: which states advance on a unit, which stay on one, which stay on anything but `/`. */
interface Masks {
  /** Per unit below TABLE_UNITS, the states whose token consumes it and moves on (literals, and `?` unless `/`). */
  table: Int32Array;
  /** Literal units from TABLE_UNITS up, with their states (`?` not included: `one` adds it). */
  other: Map<number, Int32Array>;
  one: Int32Array;
  star: Int32Array;
  any: Int32Array;
}

/** The masks of a middle of `tokens`, over `words` 32-bit words (state i is bit i % 32 of word i / 32). */
function masksOf(tokens: readonly number[], words: number): Masks {
  const masks: Masks = {
    table: new Int32Array(TABLE_UNITS * words),
    other: new Map(),
    one: new Int32Array(words),
    star: new Int32Array(words),
    any: new Int32Array(words),
  };
  tokens.forEach((token, i) => {
    const word = i >>> 5;
    const bit = 1 << (i & 31);
    if (token === ONE) masks.one[word]! |= bit;
    else if (token === STAR) masks.star[word]! |= bit;
    else if (token === ANY) masks.any[word]! |= bit;
    else if (token < TABLE_UNITS) masks.table[token * words + word]! |= bit;
    else {
      const row = masks.other.get(token) ?? new Int32Array(words);
      row[word]! |= bit;
      masks.other.set(token, row);
    }
  });
  for (let unit = 0; unit < TABLE_UNITS; unit++) {
    if (unit !== SLASH) for (let word = 0; word < words; word++) masks.table[unit * words + word]! |= masks.one[word]!;
  }
  return masks;
}

/**
 * A middle of at most 31 tokens: its 32 states are the bits of one number. A step moves the states whose token takes
 * the unit one bit up, keeps the stars that loop on it, and lets a star reach what follows it (a star matches nothing
 * too; after tokenize no star follows a star, so one shift closes the set). Allocates nothing per call.
 */
function smallAutomaton(tokens: readonly number[]): MiddleRun {
  const { table, other, one, star, any } = masksOf(tokens, 1);
  const otherAdvance = new Map([...other].map(([unit, row]) => [unit, row[0]! | one[0]!]));
  const [oneMask, loops, anyMask] = [one[0]!, star[0]! | any[0]!, any[0]!];
  const accept = 1 << tokens.length;
  const start = 1 | ((1 & loops) << 1);
  return (text, from, to) => {
    let active = start;
    for (let at = from; at < to; at++) {
      const unit = text.charCodeAt(at);
      const advance = unit < TABLE_UNITS ? table[unit]! : (otherAdvance.get(unit) ?? oneMask);
      let next = ((active & advance) << 1) | (active & (unit === SLASH ? anyMask : loops));
      next |= (next & loops) << 1;
      if (next === 0) return from - at - 2;
      active = next;
    }
    return (active & accept) !== 0 ? to - from : from - to - 1;
  };
}

/**
 * A middle of more tokens: the same step over several words, the shifted-out bit of one word carried into the next.
 * Its two state arrays are made once and reused (a run never calls out, so no other run can interleave with it).
 */
function wideAutomaton(tokens: readonly number[]): MiddleRun {
  const words = (tokens.length + 32) >>> 5;
  const { table, other, one, star, any } = masksOf(tokens, words);
  const loops = star.map((bits, word) => bits | any[word]!);
  for (const row of other.values()) for (let word = 0; word < words; word++) row[word]! |= one[word]!;
  const [acceptWord, acceptBit] = [tokens.length >>> 5, 1 << (tokens.length & 31)];
  let active = new Int32Array(words);
  let next = new Int32Array(words);
  return (text, from, to) => {
    active.fill(0);
    active[0] = 1 | ((1 & loops[0]!) << 1);
    for (let at = from; at < to; at++) {
      const unit = text.charCodeAt(at);
      const row = unit < TABLE_UNITS ? undefined : (other.get(unit) ?? one);
      const stay = unit === SLASH ? any : loops;
      let moveCarry = 0;
      let closeCarry = 0;
      let alive = 0;
      for (let word = 0; word < words; word++) {
        const moved = active[word]! & (row ? row[word]! : table[unit * words + word]!);
        let bits = (moved << 1) | moveCarry | (active[word]! & stay[word]!);
        const closing = bits & loops[word]!;
        bits |= (closing << 1) | closeCarry;
        moveCarry = moved >>> 31;
        closeCarry = closing >>> 31;
        next[word] = bits;
        alive |= bits;
      }
      if (alive === 0) return -(at - from + 1) * words - 1;
      const done = active;
      active = next;
      next = done;
    }
    return (active[acceptWord]! & acceptBit) !== 0 ? (to - from) * words : -(to - from) * words - 1;
  };
}

/**
 * The pattern compiled once: its fixed ends compared in place, then the cheapest run for what lies between them
 * (`**` alone: nothing to check; `*` alone: no `/` in it; else the automaton). Each shape is its own function.
 */
function compileGlob(pattern: string): GlobRun {
  const tokens = tokenize(pattern);
  let head = 0;
  while (head < tokens.length && tokens[head]! >= ONE) head++;
  if (head === tokens.length) {
    const all = Int32Array.from(tokens);
    return (text) => (text.length === all.length && fixedAt(all, text, 0) ? 0 : -1);
  }
  let tail = tokens.length;
  while (tokens[tail - 1]! >= ONE) tail--;
  const [prefix, suffix, middle] = [Int32Array.from(tokens.slice(0, head)), Int32Array.from(tokens.slice(tail)), tokens.slice(head, tail)];
  if (middle.length === 1 && middle[0] === ANY) return (text) => (middleEnd(prefix, suffix, text) < 0 ? -1 : 0);
  if (middle.length === 1) {
    return (text) => {
      const to = middleEnd(prefix, suffix, text);
      return to < 0 ? -1 : segmentRun(text, head, to);
    };
  }
  const run = middle.length < 32 ? smallAutomaton(middle) : wideAutomaton(middle);
  return (text) => {
    const to = middleEnd(prefix, suffix, text);
    return to < 0 ? -1 : run(text, head, to);
  };
}

/** Whether a pattern is `**` (or a run of stars with one `**` in it). */
function matchesEverything(pattern: string): boolean {
  const tokens = tokenize(pattern);
  return tokens.length === 1 && tokens[0] === ANY;
}

/**
 * The patterns of one list as one matcher: any of them matching the whole text. A list with a pattern of `**` alone
 * matches everything, its literals are one set lookup, and each other pattern is compiled once (see `compileGlob`).
 */
export function globMatcher(patterns: readonly string[]): (text: string) => boolean {
  if (patterns.some(matchesEverything)) return () => true;
  const literals = new Set(patterns.filter(isLiteralGlob));
  const runs = patterns.filter((p) => !isLiteralGlob(p)).map(compileGlob);
  if (runs.length === 0) return (text) => literals.has(text);
  if (runs.length === 1 && literals.size === 0) {
    const run = runs[0]!;
    return (text) => run(text) >= 0;
  }
  return (text) => {
    if (literals.has(text)) return true;
    for (const run of runs) if (run(text) >= 0) return true;
    return false;
  };
}

/**
 * What one pattern's matcher does with a text: whether it matches, and its steps (units the middle's segment scan
 * looked at, or the automaton's per-unit steps times its state words; the fixed ends, compared once, are not
 * counted). The figure the compiled matcher computes and drops: for tests and benchmarks, which bound it.
 */
export function globSteps(pattern: string, text: string): { matched: boolean; steps: number } {
  const figure = compileGlob(pattern)(text);
  return figure >= 0 ? { matched: true, steps: figure } : { matched: false, steps: -figure - 1 };
}
