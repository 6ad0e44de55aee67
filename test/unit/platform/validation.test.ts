import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { $ZodType } from 'zod/v4/core';
import { ValidationError } from '../../../shared/platform/errors.ts';
import { idSchema, nameSchema, pageQuerySchema } from '../../../shared/platform/http/schemas.ts';
import { parseInput } from '../../../shared/platform/http/validation.ts';

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
