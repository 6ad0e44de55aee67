import { writeFileSync } from 'node:fs';

/** A rotation function that never finishes (a timer keeps its process alive); it writes its pid to OUT_FILE. */
export function handler(): Promise<void> {
  writeFileSync(process.env.OUT_FILE!, String(process.pid));
  setInterval(() => undefined, 1_000);
  return new Promise(() => undefined);
}
