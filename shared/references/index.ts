/**
 * Secret references (decisions.md v1.4): what every cold start may need of them (a secret's place and path, the
 * depth of a resolution, the 409 of an unresolvable reference), the reverse index of references (edges the secrets
 * store writes with a version, readers for GET /secrets/{id} and the webhooks' fan-out), and the types of the parser
 * and the resolver. Other features use references only through this file and the entry below. Entry modules
 * besides this file (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry reference-index.ts the readers of the reverse index, which GET /secrets/{id} (referencedBy) and the fan-out's walk build (re-exported here, every cold start that writes would read them)
 * @entry reference-resolving.ts the parser and the resolver, which a write of a value with `${` and a reveal of a marked value load on first use (re-exported here, any static import of this file would put them in every cold start)
 */
export { MAX_LEVELS, pathOf, type SecretPlace } from './reference-basics.ts';
export type {
  LiteralSegment,
  ParsedReference,
  ParsedValue,
  ReferenceScope,
  ReferenceTarget,
  Segment,
  SyntaxProblem,
} from './reference-parser.ts';
export type { ReadTargets, ReferringValue, Resolution, ResolveOptions, Revealed, TargetRead } from './reference-resolver.ts';
export { ReferenceSyntaxError, UnresolvedReferencesError, type ReferenceProblem, type ReferenceReason } from './reference-errors.ts';
export { edgeKeysOf, edgeRoom, referenceEdgeItems } from './reference-edges.ts';
export type { Dependent, ReferenceIndexStore } from './reference-index.ts';
