import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { SlugTakenError, type EnvironmentItem, type ProjectItem } from '../../../shared/workspaces/project-store.ts';
import { makeProjectService, type ProjectServiceStore } from '../../../shared/workspaces/project-service.ts';
import { compilePolicy, type PermissionRuleInput, withDefaults } from '../../../shared/access/access-policy.ts';
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
  const environment = { id: 'env_01', projectId: 'proj_01', name: 'Prod', slug: 'prod', createdAt: project.createdAt };
  const startingWith = (slugs: Set<string>, base: string) => [...slugs].filter((slug) => slug.startsWith(base));
  const empty = { items: [], nextCursor: null, hasMore: false };
  const store: ProjectServiceStore = {
    listProjects: async () => empty,
    projectByIdKeys: () => [],
    getProject: async (_ws, id) => (id === project.id ? project : undefined),
    getProjectBySlug: async (_ws, slug) => (slug === project.slug ? project : undefined),
    async projectSlugsStartingWith(_ws, base) {
      reads.push(base);
      return startingWith(projectSlugs, base);
    },
    createProject: async (_ws, p, audit) => claim(projectSlugs, p.slug, audit),
    listEnvironments: async () => empty,
    environmentByIdKeys: () => [],
    getEnvironment: async (_ws, id) => (id === environment.id ? { ...environment, projectSlug: 'app' } : undefined),
    getEnvironmentBySlug: async () => undefined,
    environmentSlugsStartingWith: async (_ws, _project, base) => startingWith(environmentSlugs, base),
    createEnvironment: async (_ws, e: EnvironmentItem, _projectSlug, audit) => claim(environmentSlugs, e.slug, audit),
  };
  return { service: makeProjectService({ store, clock: fakeClock() }), store, audits, reads, caller: principal(), project, environment };
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

/** A machine token whose rules are `rules` (defaults filled in as for a stored key). */
const scoped = (...rules: PermissionRuleInput[]) =>
  principal({
    kind: 'machine',
    actorSub: 'mid_01',
    credentialId: 'ak_01',
    authority: { policy: compilePolicy(rules.map(withDefaults)), admin: false },
  });

describe('project service: lookups by id', () => {
  it('a project by id is the stored project; an unknown id is NOT_FOUND', async () => {
    const h = harness();
    expect(await h.service.getProject(h.caller, 'proj_01')).toEqual(h.project);
    expect((await caught(() => h.service.getProject(h.caller, 'proj_missing'))).code).toBe('NOT_FOUND');
  });

  it("a project a scoped key's rules do not reach is NOT_FOUND, worded as an unknown one", async () => {
    const h = harness();
    const error = await caught(() => h.service.getProject(scoped({ projects: ['other'], actions: ['read'] }), 'proj_01'));
    expect([error.code, error.message]).toEqual(['NOT_FOUND', 'project proj_01 was not found']);
    expect(await h.service.getProject(scoped({ projects: ['app'], actions: ['read'] }), 'proj_01')).toEqual(h.project);
  });

  it("an environment by id is its list item plus its project's slug, nothing else", async () => {
    const h = harness();
    expect(await h.service.getEnvironment(h.caller, 'env_01')).toEqual({ ...h.environment, projectSlug: 'app' });
    expect((await caught(() => h.service.getEnvironment(h.caller, 'env_missing'))).code).toBe('NOT_FOUND');
  });

  it.each<[string, PermissionRuleInput]>([
    ['another environment only', { environments: ['dev'], actions: ['read'] }],
    ['another project only', { projects: ['other'], actions: ['read'] }],
  ])('an environment a scoped key sees %s of is NOT_FOUND', async (_what, rule) => {
    const h = harness();
    const error = await caught(() => h.service.getEnvironment(scoped(rule), 'env_01'));
    expect([error.code, error.message]).toEqual(['NOT_FOUND', 'environment env_01 was not found']);
  });

  it('an environment of a project a deny rule hides is NOT_FOUND, though an allow rule names the environment', async () => {
    const h = harness();
    const caller = scoped({ environments: ['prod'], actions: ['read'] }, { effect: 'deny', projects: ['app'], actions: ['read'] });
    expect((await caught(() => h.service.getEnvironment(caller, 'env_01'))).code).toBe('NOT_FOUND');
    expect(await h.service.getEnvironment(scoped({ environments: ['prod'], actions: ['read'] }), 'env_01')).toMatchObject({ id: 'env_01' });
  });
});
