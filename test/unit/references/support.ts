import { UnresolvedReferencesError, type ReadTargets, type ReferringValue, type TargetRead } from '../../../shared/references/index.ts';

/** What the resolver's tests share: a fake store behind the port, values to resolve, and the refusal they expect. */

export interface Secret {
  id: string;
}

/**
 * A fake store of values by path (`api/dev/A` holds id `sec_api/dev/A`), with paths the caller may not reveal; the
 * port records each call's paths, so a test sees how many batch reads a resolution made and what each held.
 */
export function fakeStore(values: Record<string, string>, forbidden: readonly string[] = []) {
  const calls: string[][] = [];
  const read: ReadTargets<Secret> = async (targets) => {
    calls.push(targets.map((target) => target.path));
    const answers = new Map<string, TargetRead<Secret>>();
    for (const { path } of targets) {
      if (forbidden.includes(path)) answers.set(path, { status: 'forbidden' });
      else if (path in values) answers.set(path, { status: 'value', secret: { id: `sec_${path}` }, text: values[path]! });
      // An absent path stays out of the answer: the port may leave out what it did not find.
    }
    return answers;
  };
  return { read, calls };
}

/** The secret at `api/dev/<key>` with this text, as a reveal hands it to the resolver. */
export const root = (key: string, text: string): ReferringValue<Secret> => ({
  secret: { id: `sec_api/dev/${key}` },
  place: { projectSlug: 'api', envSlug: 'dev', key },
  text,
});

/** The 409 a resolution fails with, or undefined. */
export async function refusal(promise: Promise<unknown>): Promise<UnresolvedReferencesError | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof UnresolvedReferencesError) return error;
    throw error;
  }
}

/** A chain api/dev/L1 → L2 → … → L<length>, the last one plain. */
export function chain(length: number): Record<string, string> {
  const values: Record<string, string> = {};
  for (let level = 1; level <= length; level++) values[`api/dev/L${level}`] = level < length ? `<\${L${level + 1}}>` : 'end';
  return values;
}
