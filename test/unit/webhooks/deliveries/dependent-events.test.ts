import { describe, expect, it } from 'vitest';
import type { Dependent } from '../../../../shared/references/index.ts';
import {
  changesCurrentValue,
  dependentEvent,
  dependentsOfChange,
  type DependentReads,
} from '../../../../shared/webhooks/deliveries/dependent-events.ts';
import type { AuditRecord } from '../../../../shared/webhooks/deliveries/events.ts';

/**
 * The walk of a value change's dependents (shared/webhooks/deliveries/dependent-events.ts): level by level over the
 * reverse index, each secret once (cycles stop), at most five levels, and one `service.secret.rotate` event each
 * with `via` and an id derived from the record's.
 */

const WS = 'ws_test';
const audit = (overrides: Partial<AuditRecord> = {}): AuditRecord => ({
  id: 'aud_01JBXZ0000000000000000000A',
  workspaceId: WS,
  action: 'secret.rotate',
  actorSub: 'key_actor',
  target: 'sec_C',
  metadata: { key: 'C', version: 3, projectId: 'proj_01', environmentId: 'env_01' },
  createdAt: '2026-01-01T00:00:00.000Z',
  accountId: 'acc_test',
  ...overrides,
});
const dependent = (name: string): Dependent => ({
  id: `sec_${name}`,
  key: name,
  projectId: 'proj_01',
  environmentId: 'env_01',
  currentVersion: 1,
  path: `app/prod/${name}`,
});

/** Reads over `edges` (path → the keys referencing it), logging each level's paths. */
function reads(edges: Record<string, string[]>) {
  const levels: string[][] = [];
  const model: DependentReads = {
    pathOf: async (_ws, secret) => `app/prod/${secret.key}`,
    async dependentsOf(_ws, paths, skip = new Set()) {
      levels.push([...paths]);
      return paths.flatMap((path) =>
        (edges[path] ?? []).filter((name) => !skip.has(`sec_${name}`)).map((name) => ({ path, dependent: dependent(name) })),
      );
    },
  };
  return { model, levels };
}

describe('dependents of a value change', () => {
  it('walks a chain level by level: A references B, B references C; a change of C reaches both', async () => {
    // Prepare
    const r = reads({ 'app/prod/C': ['B'], 'app/prod/B': ['A'] });
    // Act
    const found = await dependentsOfChange(r.model, audit());
    // Assess
    expect(found.map((d) => d.id)).toEqual(['sec_B', 'sec_A']);
    expect(r.levels).toEqual([['app/prod/C'], ['app/prod/B'], ['app/prod/A']]);
  });

  it('stops at a cycle: each secret once, the changed one never', async () => {
    // Prepare: C → B → A → C
    const r = reads({ 'app/prod/C': ['B'], 'app/prod/B': ['A'], 'app/prod/A': ['C'] });
    // Act
    const found = await dependentsOfChange(r.model, audit());
    // Assess
    expect(found.map((d) => d.id)).toEqual(['sec_B', 'sec_A']);
    expect(r.levels).toHaveLength(3);
  });

  it('reads at most five levels', async () => {
    // Prepare: a chain of seven
    const names = ['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7'];
    const edges = Object.fromEntries(names.map((name, i) => [`app/prod/${i === 0 ? 'C' : names[i - 1]}`, [name]]));
    const r = reads(edges);
    // Act
    const found = await dependentsOfChange(r.model, audit());
    // Assess
    expect(found.map((d) => d.key)).toEqual(['L1', 'L2', 'L3', 'L4', 'L5']);
    expect(r.levels).toHaveLength(5);
  });

  it('only value changes walk: a tag change or a reveal does not', () => {
    expect(
      ['secret.create', 'secret.rotate', 'secret.delete', 'secret.restore'].every((action) =>
        changesCurrentValue(audit({ action: action as never })),
      ),
    ).toBe(true);
    expect(changesCurrentValue(audit({ action: 'secret.tag' }))).toBe(false);
    expect(changesCurrentValue(audit({ action: 'secret.reveal' }))).toBe(false);
  });
});

describe("a dependent's event", () => {
  it('is service.secret.rotate with the dependent secret, its current version and via, under an id derived from the record', () => {
    // Prepare
    const event = {
      id: 'evt_01JBXZ0000000000000000000A',
      type: 'service.secret.rotate' as const,
      account: 'acc_test',
      occurredAt: 't',
      data: {},
    };
    // Act
    const first = dependentEvent(audit(), event, dependent('B'));
    const again = dependentEvent(audit(), event, dependent('B'));
    const other = dependentEvent(audit(), event, dependent('A'));
    // Assess
    expect(first).toMatchObject({
      type: 'service.secret.rotate',
      data: { secretId: 'sec_B', key: 'B', version: 1, projectId: 'proj_01', environmentId: 'env_01', actorSub: 'key_actor', via: 'sec_C' },
    });
    expect(first.id).toMatch(/^evt_01JBXZ0000[0-9A-Z]{16}$/);
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
  });
});
