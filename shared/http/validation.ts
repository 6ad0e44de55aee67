import * as z from 'zod/mini';
import type * as core from 'zod/v4/core';
import { ValidationError } from '../errors.ts';

type Issue = core.$ZodIssue;
type RawIssue = core.$ZodRawIssue;

/** Plain-English rules for zod's built-in checks; a message given in a schema wins over these. */
function ruleOf(issue: RawIssue): string | undefined {
  const unit = (n: number | bigint) => (issue.origin === 'string' ? ` character${Number(n) === 1 ? '' : 's'}` : issue.origin === 'array' ? ` item${Number(n) === 1 ? '' : 's'}` : '');
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
  const broken = illFormedField(input);
  if (broken !== undefined) {
    throw new ValidationError(`${[root, ...broken].filter(Boolean).join('.') || 'body'}: must be well-formed Unicode (a lone surrogate is not)`);
  }
  const result = z.safeParse(schema, input, { error: (issue) => ruleOf(issue) });
  if (!result.success) throw new ValidationError(describeIssues(result.error.issues, root));
  return result.data;
}

/**
 * The path of the first string (or object key) in `input` that is not well-formed Unicode, if any. A lone surrogate
 * cannot be stored as UTF-8: it would come back as U+FFFD, so a secret would not round-trip byte for byte.
 */
function illFormedField(input: unknown, path: string[] = []): string[] | undefined {
  if (typeof input === 'string') return input.isWellFormed() ? undefined : path;
  if (typeof input !== 'object' || input === null) return undefined;
  for (const [key, value] of Object.entries(input)) {
    if (!key.isWellFormed()) return [...path, key.toWellFormed()];
    const found = illFormedField(value, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
