/**
 * Durations on the command line (`--fallback-max-age`): a whole number followed by one unit, `d` (days), `h`
 * (hours), `m` (minutes) or `s` (seconds), or a plain whole number of seconds: `7d`, `12h`, `30m`, `3600s`, `3600`.
 * One unit only (no `1h30m`) and no fractions, so every accepted spelling means one obvious thing.
 */

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
const DURATION = /^(\d{1,9})([dhms]?)$/;

/** The grammar, as every refusal states it. */
export const DURATION_GRAMMAR = 'a positive whole number with an optional unit d, h, m or s (7d, 12h, 30m, 3600s; plain is seconds)';

/** The duration `text` in milliseconds; a RangeError naming the grammar for anything else, or for zero. */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[(match[2] || 's') as keyof typeof UNIT_MS] : 0;
  if (!(ms > 0)) throw new RangeError(`${JSON.stringify(text)} is not a duration: expected ${DURATION_GRAMMAR}`);
  return ms;
}

/** An age for people: whole days, else hours, else minutes (`8 days`, `5 hours`, `0 minutes`). */
export function describeAge(ms: number): string {
  const [unit, size] = ms >= UNIT_MS.d ? ['day', UNIT_MS.d] : ms >= UNIT_MS.h ? ['hour', UNIT_MS.h] : ['minute', UNIT_MS.m];
  const count = Math.floor(Math.max(ms, 0) / size);
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
