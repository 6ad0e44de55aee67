import { ReferenceSyntaxError } from './reference-errors.ts';
import { pathOf, type SecretPlace } from './reference-basics.ts';

/**
 * The grammar of secret references (decisions.md v1.4, "Secret references"): `${KEY}` (same environment),
 * `${env.KEY}` (another environment of the same project, by slug), `${project.env.KEY}` (by slugs). Slugs hold no
 * dot, so the dots decide: none is a key, one is `env.KEY`, two or more are `project.env.KEY` (the key keeps any
 * further dots). `$${` is a literal `${`. A reference ends at the first `}`; its text is at most 600 characters; a
 * value holds at most 50 references. One scan serves both the write's syntax check and the reveal.
 */

export const MAX_REFERENCE_LENGTH = 600;
export const MAX_REFERENCES_PER_VALUE = 50;
/** A key's and a slug's own limits (decisions.md, "Secrets" and "Slugs"): a reference naming a longer one names nothing. */
export const MAX_KEY_LENGTH = 256;
export const MAX_SLUG_LENGTH = 64;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const KEY = /^[A-Za-z0-9_.\-/]+$/;

/** Where a reference looks: its value's own environment, another of the same project, or any project's. */
export type ReferenceScope = 'environment' | 'project' | 'workspace';

export interface ParsedReference {
  kind: 'reference';
  /** The text inside `${…}`, as the 409's `details` name it. */
  text: string;
  scope: ReferenceScope;
  /** Only for `workspace` scope. */
  projectSlug?: string;
  /** For `project` and `workspace` scope. */
  envSlug?: string;
  key: string;
  /** Where its `${` starts (UTF-16 code units from 0). */
  offset: number;
}

/** Text answered as is; `$${` already turned into `${`. */
export interface LiteralSegment {
  kind: 'literal';
  text: string;
}

export type Segment = LiteralSegment | ParsedReference;

/** The first reference that does not parse: where it starts, the rule it breaks, and its text (at most 600). */
export interface SyntaxProblem {
  offset: number;
  rule: string;
  text: string;
}

export type ParsedValue = { ok: true; segments: Segment[]; references: ParsedReference[] } | { ok: false; problem: SyntaxProblem };

const SLUG_RULE = `1 to ${MAX_SLUG_LENGTH} of a-z, 0-9 and "-" (not at either end, never two in a row)`;
const KEY_RULE = `1 to ${MAX_KEY_LENGTH} of letters, digits, "_", ".", "-" and "/" (no "/" at either end, never "//")`;

/** The rule a slug breaks, or undefined. */
function slugProblem(slug: string, what: 'project' | 'environment'): string | undefined {
  return slug.length <= MAX_SLUG_LENGTH && SLUG.test(slug) ? undefined : `names a ${what} slug that is not ${SLUG_RULE}`;
}

/** The rule a key breaks, or undefined (the rule of decisions.md, "Secrets"). */
function keyProblem(key: string): string | undefined {
  const ok = key.length <= MAX_KEY_LENGTH && KEY.test(key) && !key.startsWith('/') && !key.endsWith('/') && !key.includes('//');
  return ok ? undefined : `names a key that is not ${KEY_RULE}`;
}

/** The text inside `${…}` as a reference, or the rule it breaks. */
function referenceOf(text: string, offset: number): ParsedReference | string {
  if (text === '') return 'is empty';
  const first = text.indexOf('.');
  const second = first < 0 ? -1 : text.indexOf('.', first + 1);
  const base = { kind: 'reference' as const, text, offset };
  let reference: ParsedReference;
  if (first < 0) reference = { ...base, scope: 'environment', key: text };
  else if (second < 0) reference = { ...base, scope: 'project', envSlug: text.slice(0, first), key: text.slice(first + 1) };
  else {
    const [projectSlug, envSlug, key] = [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
    reference = { ...base, scope: 'workspace', projectSlug, envSlug, key };
  }
  const problem =
    (reference.projectSlug !== undefined ? slugProblem(reference.projectSlug, 'project') : undefined) ??
    (reference.envSlug !== undefined ? slugProblem(reference.envSlug, 'environment') : undefined) ??
    keyProblem(reference.key);
  return problem ?? reference;
}

/**
 * The `${…}` starting at `start` (where its `$` is): the reference and where the text after it starts, or the rule
 * it breaks. `count` is how many references came before it.
 */
function referenceAt(value: string, start: number, count: number): { reference: ParsedReference; next: number } | SyntaxProblem {
  const close = value.indexOf('}', start + 2);
  const inner = value.slice(start + 2, close < 0 ? undefined : close);
  const cut = inner.slice(0, MAX_REFERENCE_LENGTH);
  if (close < 0) return { offset: start, rule: 'is not closed by "}"', text: cut };
  if (inner.length > MAX_REFERENCE_LENGTH) return { offset: start, rule: `is longer than ${MAX_REFERENCE_LENGTH} characters`, text: cut };
  if (count >= MAX_REFERENCES_PER_VALUE)
    return { offset: start, rule: `is past the ${MAX_REFERENCES_PER_VALUE} a value may hold`, text: inner };
  const parsed = referenceOf(inner, start);
  return typeof parsed === 'string' ? { offset: start, rule: parsed, text: inner } : { reference: parsed, next: close + 1 };
}

/**
 * Splits a value into literal segments and references, left to right: `$${` is a literal `${`; any other `${` starts
 * a reference. Answers the first reference that does not parse instead. A value without `${` is one literal.
 */
export function parseValue(value: string): ParsedValue {
  if (!value.includes('${')) return { ok: true, segments: value === '' ? [] : [{ kind: 'literal', text: value }], references: [] };
  const segments: Segment[] = [];
  const references: ParsedReference[] = [];
  let literal = '';
  let at = 0;
  for (let dollar = value.indexOf('$', at); dollar >= 0; dollar = value.indexOf('$', at)) {
    literal += value.slice(at, dollar);
    if (value.startsWith('$${', dollar)) {
      literal += '${';
      at = dollar + 3;
    } else if (value.startsWith('${', dollar)) {
      const found = referenceAt(value, dollar, references.length);
      if (!('reference' in found)) return { ok: false, problem: found };
      if (literal !== '') segments.push({ kind: 'literal', text: literal });
      literal = '';
      segments.push(found.reference);
      references.push(found.reference);
      at = found.next;
    } else {
      literal += '$';
      at = dollar + 1;
    }
  }
  literal += value.slice(at);
  if (literal !== '') segments.push({ kind: 'literal', text: literal });
  return { ok: true, segments, references };
}

/**
 * The write's syntax check: VALIDATION_ERROR naming the field, where the first bad reference starts (a character
 * count from 1) and its rule; never its text. A reference to a secret that does not exist yet is accepted.
 */
export function assertReferencesParse(value: string, field = 'value'): ParsedReference[] {
  const parsed = parseValue(value);
  if (parsed.ok) return parsed.references;
  const { offset, rule } = parsed.problem;
  throw new ReferenceSyntaxError(`${field}: the reference at character ${offset + 1} ${rule} (write "$\${" for a literal "\${")`);
}

/** A secret a reference names, with its path `<projectSlug>/<envSlug>/<key>` (what the store reads by). */
export interface ReferenceTarget extends SecretPlace {
  path: string;
}

/** The secret `reference` names, read from a value of the secret at `from` (a reference is relative to it). */
export function targetOf(reference: ParsedReference, from: SecretPlace): ReferenceTarget {
  const place = {
    projectSlug: reference.projectSlug ?? from.projectSlug,
    envSlug: reference.envSlug ?? from.envSlug,
    key: reference.key,
  };
  return { ...place, path: pathOf(place) };
}

/**
 * The distinct targets of a value's references by path, in order of first appearance: what a write stores for the
 * `references` answer field and the reverse index. Throws as `assertReferencesParse` does.
 */
export function referenceTargets(value: string, from: SecretPlace, field = 'value'): string[] {
  return [...new Set(assertReferencesParse(value, field).map((reference) => targetOf(reference, from).path))];
}
