import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../support/contract.ts';

const meta = { requestId: 'req_01JABCDEFGHJKMNPQRSTVWXYZ0', timestamp: '2026-06-01T00:00:00.000Z' };
const project = { id: 'proj_01JABCDEFGHJKMNPQRSTVWXYZ0', name: 'P', slug: 'p', createdAt: '2026-06-01T00:00:00.000Z', createdBy: 'key_1' };

describe("the integration tests' contract check", () => {
  it('accepts an answer the document describes', () => {
    expect(() => checkAnswer('POST', '/api/v1/projects', 201, { data: project, error: null, meta })).not.toThrow();
    expect(() =>
      checkAnswer('GET', '/api/v1/projects?limit=1', 200, {
        data: [project],
        error: null,
        meta: { ...meta, page: { limit: 1, nextCursor: null, hasMore: false } },
      }),
    ).not.toThrow();
    expect(() => checkAnswer('GET', '/nowhere', 404, { message: 'Not Found' })).not.toThrow();
  });

  it('refuses an undocumented status, an extra field, a missing page, or an error code the route does not answer', () => {
    expect(() => checkAnswer('POST', '/api/v1/projects', 200, { data: project, error: null, meta })).toThrow(
      /status 200 is not in the document/,
    );
    expect(() => checkAnswer('POST', '/api/v1/projects', 201, { data: { ...project, tokenHash: 'h' }, error: null, meta })).toThrow(
      /does not match/,
    );
    expect(() => checkAnswer('GET', '/api/v1/projects', 200, { data: [project], error: null, meta })).toThrow(/does not match/);
    const error = (code: string) => ({ data: null, error: { code, message: 'm' }, meta });
    expect(() => checkAnswer('GET', '/api/v1/projects/by-slug/p', 404, error('NOT_FOUND'))).not.toThrow();
    expect(() => checkAnswer('GET', '/api/v1/webhooks/event-types', 409, error('CONFLICT'))).toThrow(/status 409/);
    expect(() => checkAnswer('GET', '/api/v1/projects/by-slug/p', 404, error('CONFLICT'))).toThrow(/does not match/);
  });
});
