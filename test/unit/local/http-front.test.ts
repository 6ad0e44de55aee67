import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../../bin/local/http-front.ts';

const compile = (routeKey: string) => {
  const [method, path] = routeKey.split(' ') as [string, string];
  return { routeKey, method, segments: path.split('/').slice(1), functionName: 'f', handler: async () => undefined };
};

describe('local API Gateway route matching', () => {
  const routes = [
    'GET /api/v1/projects/by-slug/{projectSlug}',
    'GET /api/v1/projects/{projectId}/environments',
    'GET /api/v1/projects/by-slug/{projectSlug}/environments/{envSlug}',
  ].map(compile);

  it('prefers a literal segment over a parameter, as API Gateway does', () => {
    expect(matchRoute(routes, 'GET', '/api/v1/projects/by-slug/environments')?.route.routeKey).toBe(
      'GET /api/v1/projects/by-slug/{projectSlug}',
    );
    expect(matchRoute(routes, 'GET', '/api/v1/projects/proj_1/environments')?.params).toEqual({ projectId: 'proj_1' });
  });

  it('decodes path parameters and matches nothing for other methods, lengths or bad escapes', () => {
    expect(matchRoute(routes, 'GET', '/api/v1/projects/by-slug/a%2Fb')?.params).toEqual({ projectSlug: 'a/b' });
    expect(matchRoute(routes, 'POST', '/api/v1/projects/by-slug/x')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/api/v1/projects/by-slug/x/')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/api/v1/projects/by-slug/%E0%A4%A')).toBeUndefined();
  });

  it('gives a parameter no empty segment: a trailing slash is no lookup by id', () => {
    const byId = [compile('GET /api/v1/projects/{projectId}')];
    expect(matchRoute(byId, 'GET', '/api/v1/projects/proj_1')?.params).toEqual({ projectId: 'proj_1' });
    expect(matchRoute(byId, 'GET', '/api/v1/projects/')).toBeUndefined();
  });
});
