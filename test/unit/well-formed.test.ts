import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/platform/errors.ts';
import { parseInput } from '../../shared/platform/http/validation.ts';

describe('well-formed Unicode at the edge', () => {
  it('refuses a lone surrogate anywhere in the input, naming the field by its path', () => {
    // Prepare
    const query = z.object({ q: z.string() });
    const body = z.object({ events: z.array(z.string()), description: z.string() });
    // Act / Assess
    expect(() => parseInput(query, { q: 'a\ud800' })).toThrow(
      new ValidationError('q: must be well-formed Unicode (a lone surrogate is not)'),
    );
    expect(() => parseInput(body, { events: ['ok', 'x\udfff'], description: 'd' })).toThrow(
      new ValidationError('events.1: must be well-formed Unicode (a lone surrogate is not)'),
    );
    expect(() => parseInput(body, { events: [], description: '\udc00\ud800' })).toThrow(ValidationError);
  });

  it('takes surrogate pairs (astral characters) as they are', () => {
    expect(parseInput(z.object({ q: z.string() }), { q: '🔑\u{10FFFF}' })).toEqual({ q: '🔑\u{10FFFF}' });
  });
});
