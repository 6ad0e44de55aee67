import { onFirstUse } from '../platform/on-first-use.ts';
import type { makeReferenceReveals, ReferenceRevealDeps } from './secret-reference-reveals.ts';

/**
 * The resolver's side of the secrets service (secret-reference-reveals.ts) as reveals hold it: a stand-in whose first
 * call imports it, so the parser and the resolver are a chunk of their own (lib/lambda-bundle.ts) that a cold start,
 * and every reveal of a value without references, never reads.
 */
export const referenceReveals = (deps: ReferenceRevealDeps) =>
  onFirstUse<ReturnType<typeof makeReferenceReveals>, 'resolve' | 'resolveAll' | 'resolvePage'>(
    ['resolve', 'resolveAll', 'resolvePage'],
    async () => (await import('./secret-reference-reveals.ts')).makeReferenceReveals(deps),
  );
