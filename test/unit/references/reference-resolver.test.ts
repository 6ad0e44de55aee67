import { describe, expect, it } from 'vitest';
import { resolveReference } from '../../../shared/references/reference-resolving.ts';
import { chain, fakeStore, refusal, root } from './support.ts';

/** The resolver over a fake store: what it reads level by level, how deep it goes, and the cycles it refuses. */

describe('resolveReference: values and reads', () => {
  it('reads nothing for a value without references, and answers $${ as ${ (still no read)', async () => {
    // Prepare
    const { read, calls } = fakeStore({});
    // Act
    const plain = await resolveReference(root('A', 'p@ss $ {x}'), read);
    const escaped = await resolveReference(root('B', 'echo $${HOME}'), read);
    // Assess
    expect(plain).toEqual({ value: 'p@ss $ {x}', revealed: [] });
    expect(escaped).toEqual({ value: 'echo ${HOME}', revealed: [] });
    expect(calls).toEqual([]);
  });

  it('resolves the three forms relative to the referencing secret in one batch read, each target revealed via it', async () => {
    // Prepare
    const { read, calls } = fakeStore({ 'api/dev/USER': 'app', 'api/shared/HOST': 'db.internal', 'core/prod/PORT': '5432' });
    // Act
    const resolved = await resolveReference(root('URL', 'postgres://${USER}@${shared.HOST}:${core.prod.PORT}/x'), read);
    // Assess
    expect(resolved.value).toBe('postgres://app@db.internal:5432/x');
    expect(calls).toEqual([['api/dev/USER', 'api/shared/HOST', 'core/prod/PORT']]);
    expect(resolved.revealed).toEqual([
      { secret: { id: 'sec_api/dev/USER' }, path: 'api/dev/USER', via: 'sec_api/dev/URL' },
      { secret: { id: 'sec_api/shared/HOST' }, path: 'api/shared/HOST', via: 'sec_api/dev/URL' },
      { secret: { id: 'sec_core/prod/PORT' }, path: 'core/prod/PORT', via: 'sec_api/dev/URL' },
    ]);
  });

  it('reads a target referenced twice once, and reveals it once', async () => {
    // Prepare
    const { read, calls } = fakeStore({ 'api/dev/B': 'b' });
    // Act
    const resolved = await resolveReference(root('A', '${B}-${B}-${dev.B}'), read);
    // Assess
    expect(resolved.value).toBe('b-b-b');
    expect(calls).toEqual([['api/dev/B']]);
    expect(resolved.revealed.map((one) => one.path)).toEqual(['api/dev/B']);
  });

  it("reads level by level, one batch per level, a target's references relative to the target", async () => {
    // Prepare
    const { read, calls } = fakeStore({
      'api/dev/B': '[${D}]',
      'api/prod/C': '(${E})',
      'api/dev/D': 'd',
      'api/prod/E': 'e',
    });
    // Act
    const resolved = await resolveReference(root('A', '${B}${prod.C}'), read);
    // Assess
    expect(resolved.value).toBe('[d](e)');
    expect(calls).toEqual([
      ['api/dev/B', 'api/prod/C'],
      ['api/dev/D', 'api/prod/E'],
    ]);
    expect(resolved.revealed.map(({ path, via }) => [path, via])).toEqual([
      ['api/dev/B', 'sec_api/dev/A'],
      ['api/prod/C', 'sec_api/dev/A'],
      ['api/dev/D', 'sec_api/dev/B'],
      ['api/prod/E', 'sec_api/prod/C'],
    ]);
  });

  it("answers a target's escaped ${ literally and never scans a resolved value again", async () => {
    // Prepare
    const { read, calls } = fakeStore({ 'api/dev/B': 'x $${C} y', 'api/dev/C': 'never read' });
    // Act
    const resolved = await resolveReference(root('A', '<${B}>'), read);
    // Assess
    expect(resolved.value).toBe('<x ${C} y>');
    expect(calls).toEqual([['api/dev/B']]);
  });

  it('resolves a shared target (a diamond) once: no cycle', async () => {
    // Prepare
    const { read, calls } = fakeStore({ 'api/dev/B': '${D}', 'api/dev/C': '${D}', 'api/dev/D': 'd' });
    // Act
    const resolved = await resolveReference(root('A', '${B}+${C}'), read);
    // Assess
    expect(resolved.value).toBe('d+d');
    expect(calls).toEqual([['api/dev/B', 'api/dev/C'], ['api/dev/D']]);
  });
});

describe('resolveReference: depth', () => {
  it('resolves 5 levels in 5 reads', async () => {
    // Prepare
    const { read, calls } = fakeStore(chain(5));
    // Act
    const resolved = await resolveReference(root('A', '${L1}'), read);
    // Assess
    expect(resolved.value).toBe('<<<<end>>>>');
    expect(calls).toHaveLength(5);
  });

  it('refuses a 6th level as too_deep, naming the reference, without reading its target', async () => {
    // Prepare
    const { read, calls } = fakeStore(chain(6));
    // Act
    const refused = await refusal(resolveReference(root('A', '${L1}'), read));
    // Assess
    expect(refused?.details).toEqual([{ reference: 'L6', reason: 'too_deep' }]);
    expect(calls).toHaveLength(5);
    expect(calls.flat()).not.toContain('api/dev/L6');
  });

  it('refuses a 6th level met on a long chain to a target first read on a short one', async () => {
    // Prepare: X is level 1 through ${X} and level 5 through L1…L4; X's own reference is level 2 and level 6.
    const values = { ...chain(4), 'api/dev/L4': '${X}', 'api/dev/X': '${Y}', 'api/dev/Y': 'y' };
    const { read } = fakeStore(values);
    // Act
    const refused = await refusal(resolveReference(root('A', '${X}${L1}'), read));
    // Assess
    expect(refused?.details).toEqual([{ reference: 'Y', reason: 'too_deep' }]);
  });
});

describe('resolveReference: cycles', () => {
  it('refuses a value that references itself, reading nothing', async () => {
    // Prepare
    const { read, calls } = fakeStore({});
    // Act
    const refused = await refusal(resolveReference(root('A', 'x${dev.A}'), read));
    // Assess
    expect(refused?.details).toEqual([{ reference: 'dev.A', reason: 'cycle' }]);
    expect(calls).toEqual([]);
  });

  it('refuses a cycle through other secrets, naming the reference that closes it', async () => {
    // Prepare
    const { read, calls } = fakeStore({ 'api/dev/B': '${prod.C}', 'api/prod/C': '${dev.A}' });
    // Act
    const refused = await refusal(resolveReference(root('A', '${B}'), read));
    // Assess
    expect(refused?.details).toEqual([{ reference: 'dev.A', reason: 'cycle' }]);
    expect(calls).toEqual([['api/dev/B'], ['api/prod/C']]);
  });

  it('refuses a cycle between targets that does not pass through the value revealed', async () => {
    // Prepare
    const { read } = fakeStore({ 'api/dev/B': '${C}', 'api/dev/C': '${B}' });
    // Act
    const refused = await refusal(resolveReference(root('A', '${B}'), read));
    // Assess
    expect(refused?.details).toEqual([{ reference: 'B', reason: 'cycle' }]);
  });
});
