import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { $ZodType } from 'zod/v4/core';
import { ValidationError } from '../../../shared/platform/errors.ts';
import { idSchema, nameSchema, pageQuerySchema } from '../../../shared/platform/http/schemas.ts';
import { allRouteDefinitions } from '../../../bin/openapi/routes.ts';
import { MAX_DEPTH, parseInput } from '../../../shared/platform/http/validation.ts';

const body = z.strictObject({
  name: nameSchema(),
  tags: z.array(z.string().max(3)).max(2).optional(),
  mode: z.enum(['a', 'b']).optional(),
});

function messageOf(schema: $ZodType, input: unknown): string {
  try {
    parseInput(schema, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as Error).message;
  }
  throw new Error('expected a validation error');
}

describe('parseInput', () => {
  it('names the field and the rule', () => {
    expect(messageOf(body, {})).toBe('name: is required');
    expect(messageOf(body, { name: '' })).toBe('name: must be at least 1 character');
    expect(messageOf(body, { name: 'x'.repeat(121) })).toBe('name: must be at most 120 characters');
    expect(messageOf(body, { name: 7 })).toBe('name: must be a string');
    expect(messageOf(body, { name: 'x', extra: 1, other: 2 })).toBe('extra: is not a known field; other: is not a known field');
    expect(messageOf(body, { name: 'x', tags: ['a', 'b', 'c'] })).toBe('tags: must be at most 2 items');
    expect(messageOf(body, { name: 'x', tags: ['abcd'] })).toBe('tags.0: must be at most 3 characters');
    expect(messageOf(body, { name: 'x', mode: 'c' })).toBe('mode: must be one of "a", "b"');
    expect(messageOf(body, null)).toBe('body: must be an object');
  });

  it('returns the parsed value when valid', () => {
    expect(parseInput(body, { name: 'ok' })).toEqual({ name: 'ok' });
  });

  it('checks id prefixes', () => {
    const schema = z.object({ projectId: idSchema('project') });
    expect(parseInput(schema, { projectId: 'proj_01JZZZZZZZZZZZZZZZZZZZZZZZ' })).toBeTruthy();
    expect(messageOf(schema, { projectId: 'env_01JZZZZZZZZZZZZZZZZZZZZZZZ' })).toBe('projectId: must be a proj_ id');
    expect(messageOf(schema, { projectId: 'proj_01JZZZZZZZZZZZZZZZZZZZZZZ' })).toBe('projectId: must be a proj_ id');
  });

  it('parses limit from 1 to 200 with 50 by default', () => {
    expect(parseInput(pageQuerySchema(), {})).toEqual({ limit: 50 });
    expect(parseInput(pageQuerySchema(), { limit: '1' }).limit).toBe(1);
    expect(parseInput(pageQuerySchema(), { limit: '200' }).limit).toBe(200);
    expect(messageOf(pageQuerySchema(), { limit: '0' })).toBe('limit: must be at least 1');
    expect(messageOf(pageQuerySchema(), { limit: '201' })).toBe('limit: must be at most 200');
    expect(messageOf(pageQuerySchema(), { limit: 'x' })).toBe('limit: must be an integer from 1 to 200');
    expect(messageOf(pageQuerySchema(), { cursor: '' })).toBe('cursor: must be at least 1 character');
  });
});

const routes = allRouteDefinitions();

/** A string of exactly `n` UTF-16 code units, astral characters (two units each) with one `a` when `n` is odd. */
const units = (n: number) => '🔑'.repeat(n >> 1) + (n % 2 ? 'a' : '');

/** The message parseInput throws, or 'ok'. */
function outcome(schema: $ZodType, input: unknown): string {
  try {
    parseInput(schema, input);
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as Error).message;
  }
}

/** Every string length limit of the API (decisions.md counts UTF-16 code units): route, where, field, min, max, a valid rest. */
const LIMITS: [string, 'body' | 'query', string, number, number, Record<string, unknown>][] = [
  ['POST /api/v1/projects', 'body', 'name', 1, 120, {}],
  ['POST /api/v1/projects/{projectId}/environments', 'body', 'name', 1, 120, {}],
  ['POST /api/v1/access-keys', 'body', 'name', 1, 120, {}],
  ['PUT /api/v1/environments/{envId}/secrets', 'body', 'value', 0, 65536, { key: 'K' }],
  ['POST /api/v1/reveal', 'body', 'path', 3, 600, {}],
  ['POST /api/v1/webhooks', 'body', 'url', 1, 2048, { events: ['service.secret.create'] }],
  ['POST /api/v1/webhooks', 'body', 'description', 0, 280, { url: 'https://example.com', events: ['service.secret.create'] }],
  ['PATCH /api/v1/webhooks/{id}', 'body', 'description', 0, 280, {}],
  ['GET /api/v1/search/secrets', 'query', 'q', 1, 256, {}],
  ['GET /api/v1/audit', 'query', 'target', 1, 64, {}],
  ['GET /api/v1/audit', 'query', 'actorSub', 1, 256, {}],
  ['GET /api/v1/webhook-deliveries', 'query', 'eventType', 1, 64, {}],
  ['GET /api/v1/projects', 'query', 'cursor', 1, 2048, {}],
];

describe("string length limits count UTF-16 code units, as JavaScript's length", () => {
  it.each(LIMITS)('%s %s.%s: %i to %i units, astral characters counted as two', (routeKey, where, field, min, max, rest) => {
    // Prepare
    const schema = routes[routeKey]![where]!;
    const withField = (value: string) => ({ ...rest, [field]: value });
    // Act / Assess: at the limit and one past it, in units; one past the maximum is far under it in code points
    expect(outcome(schema, withField(units(max)))).toBe('ok');
    expect(outcome(schema, withField(units(max + 1)))).toBe(`${field}: must be at most ${max} characters`);
    expect(outcome(schema, withField(units(min)))).toBe('ok');
    if (min > 0)
      expect(outcome(schema, withField(units(min - 1)))).toBe(`${field}: must be at least ${min} character${min === 1 ? '' : 's'}`);
  });

  it('refuses a secret value of 40,000 emoji: 80,000 units, though only 40,000 code points', () => {
    const schema = routes['PUT /api/v1/environments/{envId}/secrets']!.body!;
    expect(outcome(schema, { key: 'K', value: '😀'.repeat(40_000) })).toBe('value: must be at most 65536 characters');
  });

  it("leaves no string of any route to zod's own length checks, which count code points", () => {
    // Prepare: every string schema reachable from a route's params, query, body and headers
    const strings = Object.values(routes).flatMap((route) =>
      [route.params, route.query, route.body, route.headers].flatMap((schema) => (schema ? stringSchemasOf(schema) : [])),
    );
    // Act
    const counted = strings
      .flatMap((schema) => (schema._zod.def as { checks?: $ZodType[] }).checks ?? [])
      .filter((check) => /length/.test((check._zod.def as { check?: string }).check ?? ''));
    // Assess
    expect(counted.length).toBeGreaterThan(10);
    expect(counted.filter((check) => !check._zod.traits.has('$MaxUnits') && !check._zod.traits.has('$MinUnits'))).toEqual([]);
  });
});

/** The string schemas inside `schema`, found through every schema its definition names (shape, inner types, pipes). */
function stringSchemasOf(schema: $ZodType, seen = new Set<$ZodType>()): $ZodType[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const named = Object.entries(def).flatMap(([name, value]) =>
    name === 'checks'
      ? []
      : Array.isArray(value)
        ? value
        : value && typeof value === 'object' && !('_zod' in value)
          ? Object.values(value)
          : [value],
  );
  const children = named.filter(
    (value): value is $ZodType => typeof value === 'object' && value !== null && '_zod' in value && 'type' in (value as $ZodType)._zod.def,
  );
  return [...(def.type === 'string' ? [schema] : []), ...children.flatMap((child) => stringSchemasOf(child, seen))];
}

describe('nesting depth', () => {
  const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
  const objects = (depth: number) => JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
  const body = routes['PUT /api/v1/environments/{envId}/secrets']!.body!;

  it(`takes ${MAX_DEPTH} levels and refuses ${MAX_DEPTH + 1}, naming the rule`, () => {
    expect(outcome(body, { key: 'K', value: 'v', extra: nested(MAX_DEPTH - 1) })).toBe('extra: is not a known field');
    expect(outcome(body, { key: 'K', value: 'v', extra: nested(MAX_DEPTH) })).toBe('body: nested deeper than 64 levels');
    expect(outcome(body, objects(MAX_DEPTH))).toBe('key: is required; value: is required; a: is not a known field');
    expect(outcome(body, objects(MAX_DEPTH + 1))).toBe('body: nested deeper than 64 levels');
  });

  it('refuses 10,000 levels of arrays or objects without overflowing the stack', () => {
    expect(outcome(body, { key: 'K', value: nested(10_000) })).toBe('body: nested deeper than 64 levels');
    expect(outcome(body, objects(10_000))).toBe('body: nested deeper than 64 levels');
  });

  it('still names the first ill-formed string or key by its path, depth first in field order', () => {
    expect(outcome(body, { key: 'K', value: 'v', a: [1, { b: 'x\ud800' }], c: 'y\udc00' })).toBe(
      'a.1.b: must be well-formed Unicode (a lone surrogate is not)',
    );
    expect(outcome(body, { key: 'K', ['k\ud800']: 2 })).toBe('k\ufffd: must be well-formed Unicode (a lone surrogate is not)');
  });
});
