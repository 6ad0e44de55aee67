/** Time source, injected so tests can move it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
