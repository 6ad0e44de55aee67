import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { SlugTakenError, type EnvironmentItem, type ProjectItem } from '../../../shared/workspaces/project-store.ts';
import { makeProjectService, type ProjectServiceStore } from '../../../shared/workspaces/project-service.ts';
import { caught, fakeClock, principal } from '../support/fakes.ts';

/**
 * A project store that knows which slugs are taken. `racers` lists slugs another request takes between this
 * request's read of the taken slugs and its write, one per create attempt (the write then fails as the real
 * transaction's condition would).
 */
function harness(taken: { projects?: string[]; environments?: string[] } = {}, racers: string[] = []) {
  const projectSlugs = new Set(taken.projects ?? []);
  const environmentSlugs = new Set(taken.environments ?? []);
  const audits: AuditEntry[] = [];
  const reads: string[] = [];
  const project: ProjectItem = { id: 'proj_01', name: 'App', slug: 'app', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'key_actor' };
  const claim = (slugs: Set<string>, slug: string, audit: AuditEntry) => {
    const racer = racers.shift();
    if (racer) slugs.add(racer);
    if (slugs.has(slug)) throw new SlugTakenError();
    slugs.add(slug);
    audits.push(audit);
  };
  const startingWith = (slugs: Set<string>, base: string) => [...slugs].filter((slug) => slug.startsWith(base));
  const empty = { items: [], nextCursor: null, hasMore: false };
  const store: ProjectServiceStore = {
    listProjects: async () => empty,
    getProject: async (_ws, id) => (id === project.id ? project : undefined),
    getProjectBySlug: async (_ws, slug) => (slug === project.slug ? project : undefined),
    async projectSlugsStartingWith(_ws, base) {
      reads.push(base);
      return startingWith(projectSlugs, base);
    },
    createProject: async (_ws, p, audit) => claim(projectSlugs, p.slug, audit),
    listEnvironments: async () => empty,
    getEnvironmentBySlug: async () => undefined,
    environmentSlugsStartingWith: async (_ws, _project, base) => startingWith(environmentSlugs, base),
    createEnvironment: async (_ws, e: EnvironmentItem, _projectSlug, audit) => claim(environmentSlugs, e.slug, audit),
  };
  return { service: makeProjectService({ store, clock: fakeClock() }), store, audits, reads, caller: principal() };
}

describe('project service: slugs', () => {
  it('a free slug is taken as is, with a project.create audit entry naming it', async () => {
    const h = harness();
    const project = await h.service.createProject(h.caller, { name: 'My App' });
    expect(project.slug).toBe('my-app');
    expect(h.audits).toEqual([
      expect.objectContaining({ action: 'project.create', target: project.id, metadata: expect.objectContaining({ slug: 'my-app' }) }),
    ]);
  });

  it('slug clash appends -2, then -3', async () => {
    const h = harness({ projects: ['my-app'] });
    const second = await h.service.createProject(h.caller, { name: 'My App' });
    const third = await h.service.createProject(h.caller, { name: 'my app!' });
    expect([second.slug, third.slug]).toEqual(['my-app-2', 'my-app-3']);
  });

  it('a slug taken by a concurrent request between read and write is picked again from a fresh read', async () => {
    // Prepare: another request takes "my-app" just before this one writes it.
    const h = harness({}, ['my-app']);
    // Act
    const project = await h.service.createProject(h.caller, { name: 'My App' });
    // Assess
    expect(project.slug).toBe('my-app-2');
    expect(h.reads).toEqual(['my-app', 'my-app']);
    expect(h.audits).toHaveLength(1);
  });

  it('eight lost races in a row are CONFLICT', async () => {
    const h = harness({}, ['my-app', 'my-app-2', 'my-app-3', 'my-app-4', 'my-app-5', 'my-app-6', 'my-app-7', 'my-app-8']);
    const error = await caught(() => h.service.createProject(h.caller, { name: 'My App' }));
    expect(error.code).toBe('CONFLICT');
    expect(h.reads).toHaveLength(8);
  });

  it('seven lost races still end in a project', async () => {
    const h = harness({}, ['my-app', 'my-app-2', 'my-app-3', 'my-app-4', 'my-app-5', 'my-app-6', 'my-app-7']);
    expect((await h.service.createProject(h.caller, { name: 'My App' })).slug).toBe('my-app-8');
  });

  it('a store failure that is not a slug clash is not retried', async () => {
    const h = harness();
    let writes = 0;
    h.store.createProject = async () => {
      writes++;
      throw new Error('throttled');
    };
    await expect(h.service.createProject(h.caller, { name: 'My App' })).rejects.toThrow('throttled');
    expect(writes).toBe(1);
  });

  it('environment slugs clash within their project the same way, with the environment.create audit entry', async () => {
    const h = harness({ environments: ['prod'] });
    const environment = await h.service.createEnvironment(h.caller, 'proj_01', { name: 'Prod' });
    expect(environment.slug).toBe('prod-2');
    expect(h.audits[0]).toMatchObject({ action: 'environment.create', metadata: { slug: 'prod-2', projectId: 'proj_01' } });
  });
});

describe('project service: lookups', () => {
  it('an environment of a project that does not exist is NOT_FOUND, and nothing is written', async () => {
    const h = harness();
    expect((await caught(() => h.service.createEnvironment(h.caller, 'proj_missing', { name: 'Prod' }))).code).toBe('NOT_FOUND');
    expect(h.audits).toEqual([]);
  });

  it('an empty environment list is NOT_FOUND for an unknown project and [] for a known one', async () => {
    const h = harness();
    expect((await h.service.listEnvironments(h.caller, 'proj_01', { limit: 10 })).items).toEqual([]);
    expect((await caught(() => h.service.listEnvironments(h.caller, 'proj_missing', { limit: 10 }))).code).toBe('NOT_FOUND');
  });
});
