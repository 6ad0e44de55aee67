import { describe, expect, it } from 'vitest';
import { ApiError, unwrap } from '../../../sdk/src/errors.ts';

const failed = (status: number, error: unknown) => ({ error, response: new Response(null, { status }) });

describe('unwrap', () => {
  it("throws the API's code, message, request id and details", () => {
    const envelope = {
      data: null,
      error: { code: 'CONFLICT', message: 'references', details: [{ reference: 'DB_HOST', reason: 'cycle' }] },
      meta: { requestId: 'r-1' },
    };
    const error = (() => {
      try {
        unwrap(failed(409, envelope));
      } catch (caught) {
        return caught as ApiError;
      }
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'CONFLICT', requestId: 'r-1', details: [{ reference: 'DB_HOST', reason: 'cycle' }] });
  });

  it('has no details where the API gives none', () => {
    expect(() => unwrap(failed(404, { error: { code: 'NOT_FOUND', message: 'gone' } }))).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', details: undefined }),
    );
  });
});
