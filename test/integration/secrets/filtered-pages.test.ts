import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_KEY_AUTHORITY } from '../../../shared/access/permissions.ts';
import { compilePolicy, withDefaults, type PermissionRuleInput } from '../../../shared/access/access-policy.ts';
import type { Principal } from '../../../shared/platform/principal.ts';
import { systemClock } from '../../../shared/platform/clock.ts';
import { newId } from '../../../shared/platform/ids.ts';
import { makeDeletedSecretService } from '../../../shared/secrets/deleted-secret-service.ts';
import { makeProjectService } from '../../../shared/workspaces/project-service.ts';
import { makeCursorKeyLoader } from '../../../shared/platform/store/cursor-key.ts';
import { makeCursorCodec } from '../../../shared/platform/store/cursor.ts';
import type { Page } from '../../../shared/platform/store/query.ts';
import { localStore } from '../../support/api.ts';
import { secretServiceWith } from '../../support/secrets.ts';

/**
 * Hardening v1.3 (decisions.md): what a caller may not read changes no answer. For random rule sets and random
 * secrets in DynamoDB Local, through the real services and pager: the pages of the secret list and of the deleted
 * list, followed to the end, hold exactly what the rules let the key read; and when secrets it may not read are
 * added (live and deleted), every page answers the same items, `hasMore` and cursor position as before.
 */

const KEYS = ['A', 'B', 'AB', 'A_1', 'B_1', 'db/url', 'db/pass', 'api/v1/key', 'api/v2/key', 'X', 'XY', 'Z_9'];
const KEY_PATTERNS = ['**', '*', 'A*', 'B?', '?_1', 'db/*', 'api/**', '**/key', 'X', 'XY', 'Z_?', '*/pass'];
const rule = fc.record({
  effect: fc.constantFrom('allow', 'allow', 'deny') as fc.Arbitrary<'allow' | 'deny'>,
  projects: fc.constantFrom(['*'], ['app'], ['other'], ['a*']),
  environments: fc.constantFrom(['*'], ['dev'], ['prod'], ['d?v']),
  keys: fc.uniqueArray(fc.constantFrom(...KEY_PATTERNS), { minLength: 1, maxLength: 3 }),
  actions: fc.uniqueArray(fc.constantFrom('read', 'reveal', 'write', 'delete') as fc.Arbitrary<'read'>, { minLength: 1, maxLength: 2 }),
});
const scenario = fc.record({
  rules: fc.array(rule, { minLength: 1, maxLength: 4 }),
  /** Each key: absent, live or deleted. */
  states: fc.array(fc.constantFrom('absent', 'live', 'deleted'), { minLength: KEYS.length, maxLength: KEYS.length }),
  limit: fc.integer({ min: 1, max: 3 }),
});

type Answer = { keys: string[]; hasMore: boolean; position: unknown };

describe('filtered lists under random rules (fast-check, fixed seed)', () => {
  it('page exactly what the key may read, and answer the same when unreadable secrets are added', { timeout: 600_000 }, async () => {
    const { doc, tableName, store } = localStore();
    const secrets = secretServiceWith();
    const deletedSecrets = makeDeletedSecretService({ store, clock: systemClock });
    const projects = makeProjectService({ store, clock: systemClock });
    const codec = makeCursorCodec(await makeCursorKeyLoader({ doc, tableName })());

    await fc.assert(
      fc.asyncProperty(scenario, async ({ rules, states, limit }) => {
        const workspaceId = newId('workspace');
        const admin: Principal = {
          workspaceId,
          accountId: 'acc_prop',
          kind: 'api_key',
          actorSub: 'key_prop',
          credentialId: 'key_prop',
          authority: API_KEY_AUTHORITY,
        };
        const policy = compilePolicy(rules.map((r) => withDefaults(r as unknown as PermissionRuleInput)));
        const caller: Principal = {
          ...admin,
          kind: 'machine',
          actorSub: 'mid_prop',
          credentialId: 'ak_prop',
          authority: { policy, admin: false },
        };
        // An environment it cannot see is NOT_FOUND, not a list (tested elsewhere).
        fc.pre(policy.environmentVisible('app', 'dev'));
        const project = await projects.createProject(admin, { name: 'app' });
        const environment = await projects.createEnvironment(admin, project.id, { name: 'dev' });
        const readable = (key: string) => policy.allows('read', { project: 'app', environment: 'dev', key });
        const put = async (key: string, state: string) => {
          if (state === 'absent') return;
          const written = await secrets.write(admin, environment.id, { key, value: `value of ${key}` });
          if (state === 'deleted') await secrets.delete(admin, written.id, 7);
        };
        // First only what it may read (and a mix it may not), then the rest it may not read.
        const first = KEYS.map((key, i) => [key, states[i]!] as const).filter(([key], i) => readable(key) || i % 2 === 0);
        const later = KEYS.map((key, i) => [key, states[i]!] as const).filter(([key], i) => !readable(key) && i % 2 === 1);
        for (const [key, state] of first) await put(key, state);

        const follow = async (scope: string, read: (cursor?: string) => Promise<Page<{ key: string }>>) => {
          const answers: Answer[] = [];
          let cursor: string | undefined;
          do {
            const page = await read(cursor);
            answers.push({
              keys: page.items.map((item) => item.key),
              hasMore: page.hasMore,
              position: page.nextCursor && codec.decode(scope, page.nextCursor),
            });
            expect(page.hasMore).toBe(page.nextCursor !== null);
            cursor = page.nextCursor ?? undefined;
          } while (cursor);
          return answers;
        };
        const listScope = `secrets:${workspaceId}:${environment.id}`;
        const deletedScope = `deleted:${workspaceId}:${environment.id}`;
        const lists = () =>
          Promise.all([
            follow(listScope, (cursor) => secrets.list(caller, environment.id, { limit, cursor })),
            follow(deletedScope, (cursor) => deletedSecrets.list(caller, environment.id, { limit, cursor })),
          ]);
        const [live, deleted] = await lists();
        const expected = (wanted: string) => first.filter(([key, state]) => state === wanted && readable(key)).map(([key]) => key);
        expect(live.flatMap((answer) => answer.keys)).toEqual(expected('live').sort());
        expect(deleted.flatMap((answer) => answer.keys).sort()).toEqual(expected('deleted').sort());

        for (const [key, state] of later) await put(key, state);
        const [liveAgain, deletedAgain] = await lists();
        expect(liveAgain).toEqual(live);
        expect(deletedAgain).toEqual(deleted);
      }),
      { seed: 20261127, numRuns: 20, endOnFailure: true },
    );
  });
});
