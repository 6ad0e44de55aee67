import type { Statement } from './synth.ts';

/**
 * A small IAM evaluator for the table statements of a role, enough for what lib/table-access.ts writes: actions
 * without wildcards, the table or one of its indexes as resource, and the condition operators listed below (any
 * other throws, so a new kind of statement cannot be judged by a rule that does not know it). Deny wins; no Allow
 * is a refusal. It mirrors IAM's documented semantics: ForAllValues is true for a key the request lacks,
 * ForAnyValue false; the values of a negated operator are a NOR; `*` is any run of characters (`#` included), `?`
 * exactly one.
 */

/** One request as IAM sees it: the action, the partition keys it names (`dynamodb:LeadingKeys`), and what else it carries. */
export interface TableRequest {
  action: string;
  /** The partition key of every item the request names (for a Query on an index, the index's partition key). */
  leadingKeys: string[];
  /** Query on this index. @default the table */
  index?: string;
  /** `dynamodb:Attributes`: absent unless given. */
  attributes?: string[];
  /** `dynamodb:ReturnValues`: absent unless given. */
  returnValues?: string;
}

/** The template's ARN of the table (as a token), against which Resource values are compared. */
export type TableArn = { 'Fn::GetAtt': [string, 'Arn'] };

/** IAM's StringLike: `*` any run of characters, `?` one. */
export function like(pattern: string, value: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(value);
}

type Test = (value: string, policyValues: string[]) => boolean;
const TESTS: Record<string, Test> = {
  StringLike: (value, values) => values.some((pattern) => like(pattern, value)),
  StringEquals: (value, values) => values.includes(value),
  StringNotEquals: (value, values) => !values.includes(value),
};

function contextOf(request: TableRequest): Record<string, string[] | undefined> {
  return {
    'dynamodb:LeadingKeys': request.leadingKeys,
    'dynamodb:Attributes': request.attributes,
    'dynamodb:ReturnValues': request.returnValues === undefined ? undefined : [request.returnValues],
  };
}

/** Whether every condition of a statement holds for `request` (AND across operators and keys). */
function conditionsHold(condition: Record<string, Record<string, string | string[]>> | undefined, request: TableRequest): boolean {
  const context = contextOf(request);
  return Object.entries(condition ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, raw]) => {
      if (!(key in context)) throw new Error(`table-policy: unknown condition key ${key}`);
      const values = [raw].flat();
      const present = context[key];
      const match = /^(ForAllValues:|ForAnyValue:)?(\w+?)(IfExists)?$/.exec(operator);
      const test = match && TESTS[match[2]!];
      if (!match || !test) throw new Error(`table-policy: unknown condition operator ${operator}`);
      if (match[1] === 'ForAllValues:') return (present ?? []).every((value) => test(value, values));
      if (match[1] === 'ForAnyValue:') return (present ?? []).some((value) => test(value, values));
      if (present === undefined) return match[3] === 'IfExists';
      return present.length === 1 && test(present[0]!, values);
    }),
  );
}

/** Whether a statement's Resource is the table (or the request's index of it). */
function coversResource(resource: unknown, tableArn: TableArn, index: string | undefined): boolean {
  const wanted = index === undefined ? tableArn : { 'Fn::Join': ['', [tableArn, `/index/${index}`]] };
  return [resource].flat().some((one) => JSON.stringify(one) === JSON.stringify(wanted));
}

/** Whether `statements` (one role's) let `request` through. */
export function allows(statements: readonly Statement[], tableArn: TableArn, request: TableRequest): boolean {
  const applies = (statement: Statement) =>
    [statement.Action].flat().includes(`dynamodb:${request.action}`) &&
    coversResource(statement.Resource, tableArn, request.index) &&
    conditionsHold(statement.Condition as Record<string, Record<string, string | string[]>> | undefined, request);
  if (statements.some((statement) => statement.Effect === 'Deny' && applies(statement))) return false;
  return statements.some((statement) => statement.Effect === 'Allow' && applies(statement));
}

/** What a role may reach, for the printout: per action (and index), the LeadingKeys patterns of its Allows and Denies. */
export function reachOf(
  statements: readonly Statement[],
  tableArn: TableArn,
): { effect: string; action: string; partitions: string; limits: string }[] {
  const rows: { effect: string; action: string; partitions: string; limits: string }[] = [];
  for (const statement of statements) {
    const onTable = coversResource(statement.Resource, tableArn, undefined);
    const index = [statement.Resource]
      .flat()
      .map((resource) => /\/index\/(\w+)"/.exec(JSON.stringify(resource))?.[1])
      .find(Boolean);
    if (!onTable && !index) continue;
    const condition = (statement.Condition ?? {}) as Record<string, Record<string, string[]>>;
    const partitions = Object.entries(condition).find(([, keys]) => 'dynamodb:LeadingKeys' in keys)?.[1]['dynamodb:LeadingKeys'] ?? [
      '(any)',
    ];
    const limits = Object.entries(condition)
      .flatMap(([operator, keys]) =>
        Object.entries(keys)
          .filter(([key]) => key !== 'dynamodb:LeadingKeys')
          .map(([key, values]) => `${operator} ${key.replace('dynamodb:', '')}=${[values].flat().join('|')}`),
      )
      .join('; ');
    for (const action of [statement.Action].flat()) {
      rows.push({
        effect: statement.Effect,
        action: `${action.replace('dynamodb:', '')}${index ? ` (${index})` : ''}`,
        partitions: [partitions].flat().join(' '),
        limits,
      });
    }
  }
  return rows.sort(
    (a, b) => a.effect.localeCompare(b.effect) || a.action.localeCompare(b.action) || a.partitions.localeCompare(b.partitions),
  );
}
