import * as z from 'zod/mini';
import type * as core from 'zod/v4/core';
import { ValidationError } from '../errors.ts';

type Issue = core.$ZodIssue;
type RawIssue = core.$ZodRawIssue;

/** Plain-English rules for zod's built-in checks; a message given in a schema wins over these. */
function ruleOf(issue: RawIssue): string | undefined {
  const unit = (n: number | bigint) =>
    issue.origin === 'string'
      ? ` character${Number(n) === 1 ? '' : 's'}`
      : issue.origin === 'array'
        ? ` item${Number(n) === 1 ? '' : 's'}`
        : '';
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${article(issue.expected)}`;
    case 'too_small':
      return `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${issue.minimum}${unit(issue.minimum)}`;
    case 'too_big':
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${issue.maximum}${unit(issue.maximum)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return 'is not a known field';
    default:
      return undefined;
  }
}

function article(expected: string): string {
  if (expected === 'int') return 'an integer';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** `field: rule` lines joined with "; ", each naming the field (dotted path) and the rule it broke. */
export function describeIssues(issues: readonly Issue[], root: string): string {
  return issues
    .flatMap((issue) => {
      const base = [root, ...issue.path.map(String)].filter(Boolean).join('.');
      if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${base ? `${base}.` : ''}${key}: ${issue.message}`);
      return [`${base || 'body'}: ${issue.message}`];
    })
    .join('; ');
}

/**
 * Parses `input` against `schema` or throws VALIDATION_ERROR. `root` prefixes field names that are not at the top
 * of the body (query and path fields are named plainly, as the client wrote them).
 */
export function parseInput<S extends core.$ZodType>(schema: S, input: unknown, root = ''): core.output<S> {
  const problem = shapeProblem(input, root);
  if (problem !== undefined) throw new ValidationError(problem);
  const result = z.safeParse(schema, input, { error: (issue) => ruleOf(issue) });
  if (!result.success) throw new ValidationError(describeIssues(result.error.issues, root));
  return result.data;
}

/**
 * Whether validation refuses a request without a body: it parses that body as `undefined` against the route's schema
 * (shared/platform/http/middleware.ts), so the schema alone decides, and the API description's `requestBody.required` is this
 * answer rather than a flag of its own (an optional schema, such as a rotation's, takes no body).
 */
export function refusesMissingBody(schema: core.$ZodType): boolean {
  return !z.safeParse(schema, undefined).success;
}

/** How deep input may nest: far beyond any real body, and far within what zod, JSON.stringify and logging can walk. */
export const MAX_DEPTH = 64;

/**
 * The first problem of `input`'s shape as `field: rule`, if any: nested deeper than MAX_DEPTH (10,000 levels of `[`
 * fit in 20 KB, and every recursive walk after this one would overflow the stack), or a string or object key that is
 * not well-formed Unicode (a lone surrogate cannot be stored as UTF-8: it would come back as U+FFFD, so a secret
 * would not round-trip byte for byte). Walked with an explicit stack, depth first in field order, and nothing below
 * the bound is visited, so no input can overflow the call stack here either.
 */
export function shapeProblem(input: unknown, root = ''): string | undefined {
  const pending: { value: unknown; path: string[] }[] = [{ value: input, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    const key = path.at(-1);
    if (key !== undefined && !key.isWellFormed()) return `${fieldName(root, [...path.slice(0, -1), key.toWellFormed()])}: ${ILL_FORMED}`;
    if (typeof value === 'string' && !value.isWellFormed()) return `${fieldName(root, path)}: ${ILL_FORMED}`;
    if (typeof value !== 'object' || value === null) continue;
    if (path.length >= MAX_DEPTH) return `${root || 'body'}: nested deeper than ${MAX_DEPTH} levels`;
    // Pushed last field first, so the first field is the first one looked at.
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) pending.push({ value: entries[i]![1], path: [...path, entries[i]![0]] });
  }
  return undefined;
}

const ILL_FORMED = 'must be well-formed Unicode (a lone surrogate is not)';

/** A field's dotted name under `root`; the input itself is `body`, as in every other message. */
function fieldName(root: string, path: readonly string[]): string {
  return [root, ...path].filter(Boolean).join('.') || 'body';
}
