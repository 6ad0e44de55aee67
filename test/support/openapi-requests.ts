import { readFileSync } from 'node:fs';
import fc from 'fast-check';

/**
 * Requests generated from docs/openapi.json for the property-based test of the API
 * (test/integration/platform/generated-requests.test.ts): each operation's path, query and header parameters and its
 * request body, valid against the document or mutated (wrong types, extreme strings with astral characters and lone
 * surrogates, missing and unknown fields), and hostile bodies (deep nesting, oversized, not UTF-8, not JSON). Large
 * parts are planned, not built, so that a failing plan prints short: the bytes are made when the request is sent.
 */

/** The parts of JSON Schema the document uses for parameters and request bodies. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  /** A body of one of several shapes (the login's, by `method`). */
  oneOf?: JsonSchema[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  template: string;
  parameters: Parameter[];
  body?: JsonSchema;
  /** No bearer token asked (`security: []`): the login, which is how a workload gets one. */
  open: boolean;
}

type Document = {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Parameter[]; security?: unknown[]; requestBody?: { content: { 'application/json': { schema: JsonSchema } } } }
    >
  >;
};

const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Document;

/** Every operation of the document. */
export const OPERATIONS: Operation[] = Object.entries(document.paths).flatMap(([template, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(),
    template,
    parameters: operation.parameters ?? [],
    body: operation.requestBody?.content['application/json'].schema,
    open: Array.isArray(operation.security) && operation.security.length === 0,
  })),
);

/** A string of exactly `n` UTF-16 code units: astral characters (two units each), and one `a` when `n` is odd. */
export const units = (n: number) => '🔑'.repeat(n >> 1) + (n % 2 ? 'a' : '');

export type BodyPlan =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'malformed'; text: string }
  | { kind: 'deep'; depth: number }
  | { kind: 'oversized'; bytes: number }
  | { kind: 'invalidUtf8'; bytes: readonly number[] };

export type Auth = 'apiKey' | 'machine' | 'none' | 'garbage';

export interface RequestPlan {
  operation: Operation;
  params: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  auth: Auth;
  body: BodyPlan;
}

/** What the fixtures of the test offer: existing objects for path parameters, and generators for some body fields. */
export interface Fixtures {
  /** An existing object's id or slug for this path parameter of this template, and the id prefix it takes, if any. */
  pathValue(template: string, name: string): { value: string; prefix?: string };
  /** Body and query fields whose useful values the schema cannot say (a reachable url, an existing path or key). */
  fields: Record<string, fc.Arbitrary<unknown>>;
}

/** The bytes of a planned body, or undefined for none. */
export function bodyBytes(plan: BodyPlan): Buffer | undefined {
  switch (plan.kind) {
    case 'none':
      return undefined;
    case 'json':
      // JSON.stringify writes a lone surrogate as a \u escape: the request stays UTF-8 and the string reaches the API.
      return Buffer.from(JSON.stringify(plan.value));
    case 'malformed':
      return Buffer.from(plan.text);
    case 'deep':
      return Buffer.from(`${'['.repeat(plan.depth)}${']'.repeat(plan.depth)}`);
    case 'oversized':
      return Buffer.from(`{"pad":"${'x'.repeat(plan.bytes - 10)}"}`);
    case 'invalidUtf8':
      return Buffer.concat([Buffer.from('{"name":"ab'), Buffer.from(plan.bytes), Buffer.from('"}')]);
  }
}

/** Each part of a request, valid or broken. */
type Parts = {
  [K in 'params' | 'query' | 'headers' | 'auth' | 'body']: { valid: fc.Arbitrary<RequestPlan[K]>; broken: fc.Arbitrary<RequestPlan[K]> };
};

/**
 * A request plan for any operation of the document: about half are valid in every part (so the routes' successes
 * and domain refusals are reached too), the others have one part broken, the body most often.
 */
export function requestPlan(fixtures: Fixtures): fc.Arbitrary<RequestPlan> {
  return fc.constantFrom(...OPERATIONS).chain((operation) => {
    const parts = partsOf(operation, fixtures);
    const pick = <K extends keyof Parts>(key: K, broken: keyof Parts | 'none') => (broken === key ? parts[key].broken : parts[key].valid);
    const broken = fc.oneof(
      { weight: 8, arbitrary: fc.constant('none' as const) },
      { weight: 5, arbitrary: fc.constant('body' as const) },
      fc.constantFrom<keyof Parts>('params', 'query', 'headers', 'auth'),
    );
    return broken.chain((part) =>
      fc.record({
        operation: fc.constant(operation),
        params: pick('params', part),
        query: pick('query', part),
        headers: pick('headers', part),
        auth: pick('auth', part),
        body: pick('body', part),
      }),
    );
  });
}

function partsOf(operation: Operation, fixtures: Fixtures): Parts {
  const pathNames = operation.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const params = (kind: 'valid' | 'broken') =>
    fc.record(Object.fromEntries(pathNames.map((name) => [name, pathParam(operation.template, name, fixtures, kind)])));
  return {
    params: { valid: params('valid'), broken: pathNames.length ? params('broken') : params('valid') },
    query: { valid: queryParams(operation, fixtures, 'valid'), broken: queryParams(operation, fixtures, 'broken') },
    headers: { valid: headers(operation, 'valid'), broken: headers(operation, 'broken') },
    auth: { valid: fc.constant<Auth>('apiKey'), broken: fc.constantFrom<Auth>('machine', 'machine', 'none', 'garbage') },
    body: body(operation, fixtures),
  };
}

/** An existing object, or a well-formed id of none; broken: garbage (never `.` or `..`, which URLs resolve). */
function pathParam(template: string, name: string, fixtures: Fixtures, kind: 'valid' | 'broken'): fc.Arbitrary<string> {
  const { value, prefix } = fixtures.pathValue(template, name);
  if (kind === 'valid') {
    const wellFormed = prefix
      ? fc.stringMatching(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/).map((ulid) => `${prefix}_${ulid}`)
      : fc.stringMatching(/^[a-z0-9]{1,12}$/);
    return fc.oneof({ weight: 4, arbitrary: fc.constant(value) }, wellFormed);
  }
  return fc
    .oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 70 }),
      fc.constantFrom(
        units(64),
        units(65),
        'x'.repeat(81),
        `${prefix ?? 'x'}_${'Z'.repeat(26)}`,
        `ws_${'0'.repeat(26)}`,
        `${prefix ?? 'x'}_`,
        '%',
        ' ',
      ),
    )
    .filter((v) => v !== '.' && v !== '..');
}

/** Each documented query parameter or not; broken: one of them extreme, or an unknown one added. */
function queryParams(operation: Operation, fixtures: Fixtures, kind: 'valid' | 'broken'): fc.Arbitrary<[string, string][]> {
  const documented = operation.parameters.filter((p) => p.in === 'query');
  const valid = fc
    .tuple(
      ...documented.map((p) =>
        fc
          .option(validValue(p.schema, fixtures.fields, p.name), { freq: 2 })
          .map((v) => (v === null ? [] : [[p.name, String(v)] as [string, string]])),
      ),
    )
    .map((parts) => parts.flat());
  if (kind === 'valid') return valid;
  const extreme = documented.length
    ? [fc.constantFrom(...documented).chain((p) => extremeString(p.schema).map((v): [string, string] => [p.name, v]))]
    : [];
  const unknown = fc.tuple(fc.constantFrom('unknown', 'LIMIT', 'q'), fc.string({ maxLength: 6 }));
  // API Gateway answers a request line and headers over 10,240 bytes itself: such a request never reaches the API.
  return fc
    .tuple(valid, fc.oneof(...extreme, unknown))
    .map(([rest, pair]) => [...rest.filter(([name]) => name !== pair[0]), pair])
    .filter((query) => new URLSearchParams(query).toString().length <= MAX_QUERY_BYTES);
}

/** What is left of API Gateway's 10,240-byte quota on the request line and headers for a query string. */
const MAX_QUERY_BYTES = 8 * 1024;

/**
 * Idempotency keys from a small set (so repeats and reuses happen) and If-Match versions where documented, and a
 * JSON content type; broken: keys too long or not ASCII, a key on a reveal, malformed If-Match, other content types.
 */
function headers(operation: Operation, kind: 'valid' | 'broken'): fc.Arbitrary<Record<string, string>> {
  const documented = new Set(operation.parameters.filter((p) => p.in === 'header').map((p) => p.name));
  const choices =
    kind === 'valid'
      ? {
          keyFreq: documented.has('Idempotency-Key') ? 3 : 0,
          ifMatch: ['0', '1', '2', '"1"', 'W/"2"'],
          types: ['application/json', 'application/json; charset=utf-8'],
        }
      : { keyFreq: 2, ifMatch: ['x', '-1', '99999999999', ''], types: ['text/plain', 'application/octet-stream'] };
  const keys =
    kind === 'valid'
      ? fc.oneof(fc.constant('fuzz-1'), { weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9-]{8,16}$/) })
      : fc.constantFrom('x'.repeat(256), ' ', 'cl\u00e9', 'fuzz-1');
  const header = (values: fc.Arbitrary<string>, freq: number) => (freq > 0 ? fc.option(values, { freq }) : fc.constant(null));
  return fc
    .record({
      'idempotency-key': header(keys, choices.keyFreq),
      'if-match': header(fc.constantFrom(...choices.ifMatch), documented.has('If-Match') ? 2 : kind === 'valid' ? 0 : 4),
      'content-type': fc.constantFrom(...choices.types),
    })
    .map((all) => Object.fromEntries(Object.entries(all).filter(([, v]) => v !== null)) as Record<string, string>);
}

/** A valid body (or none where none is taken); broken: a mutated one, one at its length limits, a hostile one, none. */
function body(operation: Operation, fixtures: Fixtures): Parts['body'] {
  const none = fc.constant<BodyPlan>({ kind: 'none' });
  if (!operation.body)
    return {
      valid: none,
      broken: fc.oneof({ weight: 1, arbitrary: json(fc.jsonValue({ maxDepth: 3 })) }, { weight: 3, arbitrary: hostileBody() }),
    };
  const schema = operation.body;
  return {
    valid: json(validValue(schema, fixtures.fields)),
    broken: fc.oneof(
      { weight: 4, arbitrary: json(mutatedObject(schema, fixtures.fields)) },
      { weight: 4, arbitrary: json(atLengthLimit(schema, fixtures.fields)) },
      { weight: 3, arbitrary: hostileBody() },
      { weight: 1, arbitrary: none },
    ),
  };
}

const json = (value: fc.Arbitrary<unknown>) => value.map((v): BodyPlan => ({ kind: 'json', value: v }));

/** Bodies that must be refused whatever the route: too deep, too large, not UTF-8, not JSON. */
function hostileBody(): fc.Arbitrary<BodyPlan> {
  return fc.oneof(
    fc.constantFrom(65, 1_000, 10_000).map((depth): BodyPlan => ({ kind: 'deep', depth })),
    fc.constantFrom(256 * 1024 + 1, 300_000, 1_000_000).map((bytes): BodyPlan => ({ kind: 'oversized', bytes })),
    fc
      .constantFrom([0x80], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff])
      .map((bytes): BodyPlan => ({ kind: 'invalidUtf8', bytes })),
    fc.constantFrom('{', '{"a":}', '[1,]', 'nul', "{'a':1}").map((text): BodyPlan => ({ kind: 'malformed', text })),
  );
}

/** A value valid against `schema`; a field named in `fields` takes its own generator. */
function validValue(schema: JsonSchema, fields: Fixtures['fields'], name?: string): fc.Arbitrary<unknown> {
  if (name && fields[name]) return fields[name];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return fc.oneof(...options.map((option) => validValue(option, fields)));
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string':
      return validString(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue(schema.items ?? {}, fields), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {}).map(
        ([key, property]) => [key, validValue(property, fields, key)] as const,
      );
      return fc.record(Object.fromEntries(properties), { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Any code points (astral ones included) within the bounds in UTF-16 units, or the exact bounds in astral characters. */
function validString(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 64;
  if (schema.format === 'date-time')
    return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max);
  const free = fc
    .string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 24) })
    .filter((s) => s.length >= min && s.length <= max);
  return fc.oneof({ weight: 4, arbitrary: free }, fc.constantFrom(units(max), units(Math.max(min, 1))));
}

/** Just past the bounds in UTF-16 units (with astral characters), far past them, or not well-formed at all. */
function extremeString(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 1024;
  const loneOrNot = fc.oneof(fc.constantFrom('\ud800', '\udfff'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
  // Past the maximum in units but within it in code points: what a count of code points would let through.
  const pastMaximum = fc.constantFrom(units(max + 1), units(Math.floor(max * 1.2) + 1));
  return fc.oneof(
    { weight: 2, arbitrary: pastMaximum },
    fc.constantFrom(units(Math.max(min - 1, 0)), 'a\ud800', '\udc00\ud800', '\u0000', ''),
    fc.string({ unit: loneOrNot, minLength: 1, maxLength: 12 }),
  );
}

/** A value of another JSON type than `schema`'s, or a string at or past its extremes. */
function badValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const otherType = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
    fc.object({ maxDepth: 1 }),
    fc.string({ maxLength: 6 }),
  );
  return schema.type === 'string' ? fc.oneof({ weight: 3, arbitrary: extremeString(schema) }, otherType) : otherType;
}

/**
 * A valid body with one string field (or array item) exactly at its maximum length or one past it, in UTF-16 code
 * units made of astral characters: one past is within the maximum in code points, which zod counts.
 */
function atLengthLimit(schema: JsonSchema, fields: Fixtures['fields']): fc.Arbitrary<unknown> {
  if (schema.oneOf) return fc.constantFrom(...schema.oneOf).chain((option) => atLengthLimit(option, fields));
  const stringOf = (field: JsonSchema) =>
    [field, field.items, ...(field.anyOf ?? [])].find((s) => s?.type === 'string' && s.maxLength !== undefined);
  const limited = Object.entries(schema.properties ?? {}).filter(([, field]) => stringOf(field));
  if (limited.length === 0) return mutatedObject(schema, fields);
  return fc.tuple(validValue(schema, fields), fc.constantFrom(...limited), fc.constantFrom(0, 1)).map(([valid, [name, field], past]) => {
    const value = units(stringOf(field)!.maxLength! + past);
    return { ...(valid as object), [name]: field.items ? [value] : value };
  });
}

/** A valid body with one thing wrong: a field's value, a required field missing, an unknown field, or not an object. */
function mutatedObject(schema: JsonSchema, fields: Fixtures['fields']): fc.Arbitrary<unknown> {
  if (schema.oneOf) return fc.constantFrom(...schema.oneOf).chain((option) => mutatedObject(option, fields));
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  return (validValue(schema, fields) as fc.Arbitrary<Record<string, unknown>>).chain((valid) =>
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(...names).chain((name) => badValue(properties[name]!).map((value) => ({ ...valid, [name]: value }))),
      },
      fc
        .constantFrom(...(schema.required?.length ? schema.required : names))
        .map((name) => Object.fromEntries(Object.entries(valid).filter(([key]) => key !== name))),
      fc
        .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }))
        .map(([key, value]) => ({ ...valid, [key]: value })),
      badValue({}),
    ),
  );
}
