import { readFileSync } from 'node:fs';
import type { components, paths } from './api.js';

/** A rule as a create or update request gives it (`effect`, `projects`, `environments` and `keys` may be left out). */
export type PermissionRule = NonNullable<
  paths['/api/v1/access-keys']['post']['requestBody']['content']['application/json']['permissions']
>[number];
/** A rule as the API answers it: every default filled in. */
export type AnsweredRule = components['schemas']['AccessKey']['permissions'][number];
export type Action = PermissionRule['actions'][number];

/** A rule spec (`--allow` / `--deny`) or a permissions file the CLI cannot use; its message names the problem. */
export class RuleSpecError extends Error {}

const FIELDS = ['projects', 'environments', 'keys', 'actions'] as const;
type Field = (typeof FIELDS)[number];
const ACTIONS: readonly Action[] = ['read', 'reveal', 'write', 'delete'];

/** One `field=a,b,c` part of a spec: its field and its values, or a RuleSpecError naming what is wrong. */
function parsePart(part: string): [Field, string[]] {
  const at = part.indexOf('=');
  if (at < 0) throw new RuleSpecError(`"${part}": expected field=value,value… (fields: ${FIELDS.join(', ')})`);
  const field = part.slice(0, at).trim();
  if (!(FIELDS as readonly string[]).includes(field)) throw new RuleSpecError(`unknown field "${field}" (fields: ${FIELDS.join(', ')})`);
  const values = part
    .slice(at + 1)
    .split(',')
    .map((value) => value.trim());
  if (values.some((value) => value === '')) throw new RuleSpecError(`${field}: empty value`);
  return [field as Field, values];
}

/** The actions of a spec, checked: known and not repeated (the API would refuse either). */
function checkActions(values: string[]): Action[] {
  const unknown = values.find((value) => !(ACTIONS as readonly string[]).includes(value));
  if (unknown !== undefined) throw new RuleSpecError(`actions: unknown action "${unknown}" (actions: ${ACTIONS.join(', ')})`);
  const repeated = values.find((value, i) => values.indexOf(value) !== i);
  if (repeated !== undefined) throw new RuleSpecError(`actions: "${repeated}" given twice`);
  return values as Action[];
}

/**
 * Parses the shorthand of `--allow` and `--deny`: `;`-separated `field=comma,separated,values` parts, fields
 * `projects`, `environments`, `keys` and `actions` (required), each at most once. A field left out is left to the
 * API's default (every project, environment and key). Throws a RuleSpecError naming the problem.
 *
 * Example: `parseRuleSpec('projects=api,web;environments=staging;keys=DB_*;actions=read,reveal', 'allow')`.
 */
export function parseRuleSpec(spec: string, effect: 'allow' | 'deny'): PermissionRule {
  const fields = new Map<Field, string[]>();
  if (spec.trim() === '') throw new RuleSpecError('empty rule: actions is required (actions=read,reveal,write,delete or some of them)');
  for (const part of spec.split(';')) {
    if (part.trim() === '') throw new RuleSpecError('empty part (two ";" in a row, or one at an end)');
    const [field, values] = parsePart(part);
    if (fields.has(field)) throw new RuleSpecError(`${field} given twice`);
    fields.set(field, values);
  }
  const actions = fields.get('actions');
  if (!actions) throw new RuleSpecError('actions is required (actions=read,reveal,write,delete or some of them)');
  const rule: PermissionRule = { effect, actions: checkActions(actions) };
  for (const field of ['projects', 'environments', 'keys'] as const) {
    const values = fields.get(field);
    if (values) rule[field] = values;
  }
  return rule;
}

/** A rule in the shorthand `--allow` / `--deny` take, after its effect: `allow projects=api;environments=*;…`. */
export function formatRule(rule: AnsweredRule): string {
  return `${rule.effect} ${FIELDS.map((field) => `${field}=${rule[field].join(',')}`).join(';')}`;
}

/**
 * The rules of a `--permissions` file: a JSON array of rule objects (the API checks each rule's fields). Throws a
 * RuleSpecError when the file cannot be read or is not such an array.
 */
export function readPermissionsFile(file: string): PermissionRule[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new RuleSpecError(`${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((rule) => typeof rule === 'object' && rule !== null && !Array.isArray(rule))) {
    throw new RuleSpecError(`${file}: expected a JSON array of rules ({"effect", "projects", "environments", "keys", "actions"})`);
  }
  return parsed as PermissionRule[];
}
