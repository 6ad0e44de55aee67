/**
 * The parser and the resolver of secret references, for the modules that load them on first use (a dynamic
 * `import()` of a module that imports this file: the secrets service's reference reveals and a write's check of a
 * value with `${`) and for code already in such a chunk (the AWS API's writes). Not re-exported by index.ts: a
 * static import of that file reaches every cold start, and so would they.
 */
export {
  assertReferencesParse,
  MAX_KEY_LENGTH,
  MAX_REFERENCE_LENGTH,
  MAX_REFERENCES_PER_VALUE,
  MAX_SLUG_LENGTH,
  parseValue,
  referenceTargets,
  targetOf,
} from './reference-parser.ts';
export { DEFAULT_MAX_RESOLVED_LENGTH, DEFAULT_MAX_TARGETS, resolveReference, resolveReferences } from './reference-resolver.ts';
