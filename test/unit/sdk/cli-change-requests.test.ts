import { beforeEach, describe, expect, it } from 'vitest';
import { secrets, sentPastLookup, useCliHarness } from './cli-harness.ts';
import { ok, refusal, type SeenRequest } from './fake-api.ts';

/** `secrets change-requests …` and `set|delete … --propose` against a stand-in API (decisions.md v1.4, "Change requests"). */
describe('the secrets CLI: change requests', () => {
  const VALUE = 'proposed-value-never-printed';
  let answer: (request: SeenRequest) => Response | undefined;
  const { stdout, stderr, api } = useCliHarness({ api: { api: (request) => answer(request) } });
  beforeEach(() => {
    answer = () => undefined;
  });
  const record = (over: Record<string, unknown> = {}) => ({
    id: 'cr_1',
    environmentId: 'env_1',
    title: 'Rotate',
    description: null,
    status: 'open',
    authorSub: 'apikey:key_1',
    changes: [{ key: 'API_KEY', action: 'set', baseVersion: 3 }],
    reviews: [],
    createdAt: '2026-05-01T00:00:00.000Z',
    updatedAt: '2026-05-01T00:00:00.000Z',
    ...over,
  });
  /** The requests sent, less the environment's lookup by slugs. */
  const sent = () => sentPastLookup(api);

  it('set --propose opens a change request of the values instead of writing them: its id on stdout, no value printed', async () => {
    // Prepare
    answer = (r) => (r.path === '/api/v1/change-requests' ? ok(record(), 201) : undefined);
    // Act
    await secrets('set', `API_KEY=${VALUE}`, 'DEBUG=0', '--propose', 'Rotate');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(sent()).toEqual([
      [
        'POST',
        '/api/v1/change-requests',
        {
          environmentId: 'env_1',
          title: 'Rotate',
          changes: [
            { key: 'API_KEY', value: VALUE },
            { key: 'DEBUG', value: '0' },
          ],
        },
      ],
    ]);
    expect(stdout.join('')).toBe('cr_1\n');
    expect(stderr.join('')).toContain('secrets change-requests approve cr_1');
    expect(stderr.join('')).not.toContain(VALUE);
  });

  it('delete --propose proposes the delete and deletes nothing; with --force it is a usage error, before any request', async () => {
    // Prepare
    answer = (r) =>
      r.path === '/api/v1/change-requests' ? ok(record({ changes: [{ key: 'OLD', action: 'delete', baseVersion: 2 }] }), 201) : undefined;
    // Act
    await secrets('delete', 'OLD', '--propose', 'Drop it');
    const proposed = sent();
    api.requests.splice(0);
    await secrets('delete', 'OLD', '--propose', 'Drop it', '--force');
    // Assess
    expect(proposed).toEqual([
      ['POST', '/api/v1/change-requests', { environmentId: 'env_1', title: 'Drop it', changes: [{ key: 'OLD', delete: true }] }],
    ]);
    expect(stdout.join('')).toBe('cr_1\n');
    expect(process.exitCode).toBe(2);
    expect(api.requests).toEqual([]);
  });

  it('a write refused REVIEW_REQUIRED points to --propose, once, exit status 3; another refusal does not', async () => {
    // Prepare
    answer = (r) =>
      r.method === 'PUT' ? refusal(409, 'REVIEW_REQUIRED', 'environment env_1 has a review policy (1 approval)') : undefined;
    // Act
    await secrets('set', 'API_KEY=x');
    const reviewed = stderr.splice(0).join('');
    answer = (r) => (r.method === 'PUT' ? refusal(409, 'CONFLICT', 'busy') : undefined);
    await secrets('set', 'API_KEY=x');
    // Assess
    expect(process.exitCode).toBe(3);
    expect(reviewed).toMatch(/^secrets: REVIEW_REQUIRED: environment env_1 has a review policy \(1 approval\) \(request req_1\)\n/);
    expect(reviewed.match(/--propose TITLE/g)).toHaveLength(2);
    expect(stderr.join('')).not.toContain('--propose');
  });

  it('a merge refused for stale keys names each one with both versions', async () => {
    // Prepare
    answer = () => refusal(409, 'CONFLICT', 'keys changed since proposed', [{ key: 'API_KEY', baseVersion: 3, currentVersion: 4 }]);
    // Act
    await secrets('change-requests', 'merge', 'cr_1');
    // Assess
    expect(process.exitCode).toBe(3);
    expect(sent()).toEqual([['POST', '/api/v1/change-requests/cr_1/merge', undefined]]);
    expect(stderr.join('')).toContain('secrets: API_KEY: proposed on version 3, now version 4\n');
  });

  it('list asks for the target environment and status, and prints a table; a status it does not know is a usage error', async () => {
    // Prepare
    const approved = record({ status: 'approved', reviews: [{ reviewerSub: 'u', decision: 'approve', comment: null, createdAt: 'x' }] });
    answer = (r) => (r.path === '/api/v1/change-requests' ? ok([approved], 200, { page: { nextCursor: null } }) : undefined);
    // Act
    await secrets('change-requests', 'list', '--status', 'approved');
    const asked = api.requests.at(-1)!;
    await secrets('change-requests', 'list', '--status', 'pending');
    // Assess
    expect(new URLSearchParams(asked.query).get('environmentId')).toBe('env_1');
    expect(new URLSearchParams(asked.query).get('status')).toBe('approved');
    expect(stdout.join('')).toMatch(
      /^ID +STATUS +TITLE +KEYS +APPROVALS +AUTHOR +CREATED\ncr_1 +approved +Rotate +API_KEY +1 +apikey:key_1 /,
    );
    expect(process.exitCode).toBe(2);
  });

  it('show prints the fields, changes and reviews; --reveal prints the proposed value alone', async () => {
    // Prepare
    const review = { reviewerSub: 'user_b', decision: 'reject', comment: 'Wrong key', createdAt: '2026-05-02T00:00:00.000Z' };
    answer = (r) =>
      r.path.endsWith('/reveal') ? ok({ key: 'API_KEY', value: VALUE }) : ok(record({ status: 'rejected', reviews: [review] }));
    // Act
    await secrets('change-requests', 'show', 'cr_1');
    const shown = stdout.splice(0).join('');
    await secrets('change-requests', 'show', 'cr_1', '--reveal', 'API_KEY');
    // Assess
    expect(shown).toMatch(/^id: +cr_1\ntitle: +Rotate\nstatus: +rejected\n/);
    expect(shown).toMatch(/\nKEY +ACTION +BASE VERSION\nAPI_KEY +set +3\n/);
    expect(shown).toMatch(/\nREVIEWER +DECISION +AT +COMMENT\nuser_b +reject +2026-05-02T00:00:00.000Z +Wrong key\n$/);
    expect(sent().at(-1)).toEqual(['POST', '/api/v1/change-requests/cr_1/changes/API_KEY/reveal', undefined]);
    expect(stdout.join('') === `${VALUE}\n`, 'stdout is the value alone').toBe(true);
  });

  it('approve and reject send their decision and comment; close closes', async () => {
    // Prepare
    answer = (r) => ok(record({ status: r.path.endsWith('/close') ? 'closed' : 'approved' }));
    // Act
    await secrets('change-requests', 'approve', 'cr_1', '--comment', 'Looks right');
    await secrets('change-requests', 'reject', 'cr_1');
    await secrets('change-requests', 'close', 'cr_1');
    // Assess
    expect(process.exitCode ?? 0).toBe(0);
    expect(sent()).toEqual([
      ['POST', '/api/v1/change-requests/cr_1/reviews', { decision: 'approve', comment: 'Looks right' }],
      ['POST', '/api/v1/change-requests/cr_1/reviews', { decision: 'reject' }],
      ['POST', '/api/v1/change-requests/cr_1/close', undefined],
    ]);
    expect(stderr.join('')).toContain('cr_1: approved by you; status approved; merge it: secrets change-requests merge cr_1\n');
  });
});
