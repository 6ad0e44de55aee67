import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../../shared/platform/errors.ts';
import { errorResponse } from '../../../shared/platform/http/envelope.ts';
import { UnresolvedReferencesError } from '../../../shared/references/index.ts';

const bodyOf = (error: ConflictError | NotFoundError) => JSON.parse(errorResponse('req-1', error).body as string);

describe('errorResponse', () => {
  it('answers code and message, and no details where the error has none', () => {
    const body = bodyOf(new NotFoundError('secret not found'));
    expect(body.error).toEqual({ code: 'NOT_FOUND', message: 'secret not found' });
    expect(body.data).toBeNull();
  });

  it("answers an error's details as error.details", () => {
    const body = bodyOf(new UnresolvedReferencesError([{ reference: 'env.DB_HOST', reason: 'unresolvable' }]));
    expect(body.error).toMatchObject({ code: 'CONFLICT', details: [{ reference: 'env.DB_HOST', reason: 'unresolvable' }] });
    expect(errorResponse('req-1', new ConflictError('x')).statusCode).toBe(409);
  });
});
