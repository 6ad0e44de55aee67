/**
 * Secret references (decisions.md v1.4): the parser the secrets service's writes check values with, and the resolver
 * its reveals resolve them with over a port that reads one level of targets in one batch, and the reverse index of
 * references (edges the secrets store writes with a version, readers for GET /secrets/{id} and the webhooks' fan-out).
 * Other features use references only through this file.
 */
export {
  assertReferencesParse,
  MAX_KEY_LENGTH,
  MAX_REFERENCE_LENGTH,
  MAX_REFERENCES_PER_VALUE,
  MAX_SLUG_LENGTH,
  parseValue,
  pathOf,
  referenceTargets,
  targetOf,
  type LiteralSegment,
  type ParsedReference,
  type ParsedValue,
  type ReferenceScope,
  type ReferenceTarget,
  type SecretPlace,
  type Segment,
  type SyntaxProblem,
} from './reference-parser.ts';
export {
  DEFAULT_MAX_RESOLVED_LENGTH,
  DEFAULT_MAX_TARGETS,
  MAX_LEVELS,
  resolveReference,
  resolveReferences,
  type ReadTargets,
  type ReferringValue,
  type Resolution,
  type ResolveOptions,
  type Revealed,
  type TargetRead,
} from './reference-resolver.ts';
export { ReferenceSyntaxError, UnresolvedReferencesError, type ReferenceProblem, type ReferenceReason } from './reference-errors.ts';
export {
  edgeKeysOf,
  edgeRoom,
  makeReferenceIndexStore,
  REFERENCED_BY_CAP,
  referenceEdgeItems,
  type Dependent,
  type ReferenceIndexStore,
} from './reference-index.ts';
