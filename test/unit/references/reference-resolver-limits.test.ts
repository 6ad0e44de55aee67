import { describe, expect, it } from 'vitest';
import type { TargetRead } from '../../../shared/references/index.ts';
import { resolveReference, resolveReferences } from '../../../shared/references/reference-resolving.ts';
import { fakeStore, refusal, root, type Secret } from './support.ts';

/** The resolver's refusals of targets it cannot reveal, its bounds, and several values resolved together. */

describe('resolveReference: unresolvable targets', () => {
  it('is 409 CONFLICT with details and no value for a target the caller may not reveal, whose references are not followed', async () => {
    // Prepare
    const { read, calls } = fakeStore({ 'api/dev/OK': 'fine', 'api/dev/B': '${C}', 'api/dev/C': 'c' }, ['api/dev/B']);
    // Act
    const refused = await refusal(resolveReference(root('A', '${OK}:${B}'), read));
    // Assess
    expect(refused).toMatchObject({ code: 'CONFLICT', status: 409, details: [{ reference: 'B', reason: 'unresolvable' }] });
    expect(refused?.message).not.toContain('fine');
    expect(calls).toEqual([['api/dev/OK', 'api/dev/B']]);
  });

  it('refuses a target that does not exist, at any level', async () => {
    // Prepare
    const { read } = fakeStore({ 'api/dev/B': '${MISSING}' });
    // Act
    const first = await refusal(resolveReference(root('A', '${GONE}'), read));
    const second = await refusal(resolveReference(root('A', '${B}'), read));
    // Assess
    expect(first?.details).toEqual([{ reference: 'GONE', reason: 'unresolvable' }]);
    expect(second?.details).toEqual([{ reference: 'MISSING', reason: 'unresolvable' }]);
  });

  it('refuses a target whose value does not parse (one written before references), naming its bad reference', async () => {
    // Prepare
    const { read } = fakeStore({ 'api/dev/B': 'echo ${PATH:-/bin}' });
    // Act
    const refused = await refusal(resolveReference(root('A', '${B}'), read));
    // Assess
    expect(refused?.details).toEqual([{ reference: 'PATH:-/bin', reason: 'unresolvable' }]);
  });

  it('names every failing reference of the failing level once', async () => {
    // Prepare
    const { read } = fakeStore({}, ['api/dev/F']);
    // Act
    const refused = await refusal(resolveReference(root('A', '${X}${F}${X}'), read));
    // Assess
    expect(refused?.details).toEqual([
      { reference: 'X', reason: 'unresolvable' },
      { reference: 'F', reason: 'unresolvable' },
    ]);
  });
});

describe('resolveReference: bounds', () => {
  it('takes as many distinct targets as maxTargets and refuses one more, unread', async () => {
    // Prepare
    const { read, calls } = fakeStore({ 'api/dev/B': 'b', 'api/dev/C': 'c', 'api/dev/D': 'd' });
    // Act
    const two = await resolveReference(root('A', '${B}${C}'), read, { maxTargets: 2 });
    const three = await refusal(resolveReference(root('A', '${B}${C}${D}'), read, { maxTargets: 2 }));
    // Assess
    expect(two.value).toBe('bc');
    expect(three?.details).toEqual([{ reference: 'D', reason: 'unresolvable' }]);
    expect(calls).toEqual([['api/dev/B', 'api/dev/C']]);
  });

  it('takes a resolved value of maxResolvedLength and refuses one longer, naming the reference that passes it', async () => {
    // Prepare
    const { read } = fakeStore({ 'api/dev/B': 'x'.repeat(10) });
    // Act
    const atLimit = await resolveReference(root('A', '${B}${B}'), read, { maxResolvedLength: 20 });
    const past = await refusal(resolveReference(root('A', '${B}${B}!'), read, { maxResolvedLength: 20 }));
    // Assess
    expect(atLimit.value).toHaveLength(20);
    expect(past?.details).toEqual([{ reference: 'B', reason: 'unresolvable' }]);
  });

  it('refuses a value that would grow past 65,536 characters by default, without building it', async () => {
    // Prepare: 50 references of 50 references of 50 references of 40 characters: 5,000,000 characters.
    const fifty = (key: string) => `\${${key}}`.repeat(50);
    const { read } = fakeStore({ 'api/dev/B': fifty('C'), 'api/dev/C': fifty('D'), 'api/dev/D': 'x'.repeat(40) });
    // Act
    const refused = await refusal(resolveReference(root('A', fifty('B')), read));
    // Assess
    expect(refused?.details).toEqual([{ reference: 'B', reason: 'unresolvable' }]);
  });
});

describe('resolveReferences: several values (an environment page)', () => {
  it("reads each level once for all of them, and one value's failure is its own", async () => {
    // Prepare
    const { read, calls } = fakeStore({ 'api/dev/T1': '${T3}', 'api/dev/T3': 't3' });
    // Act
    const [first, second, third] = await resolveReferences([root('A', '${T1}'), root('B', '${T2}'), root('C', 'plain')], read);
    // Assess
    expect(first).toMatchObject({ ok: true, value: 't3' });
    expect(second).toEqual({ ok: false, problems: [{ reference: 'T2', reason: 'unresolvable' }] });
    expect(third).toEqual({ ok: true, value: 'plain', revealed: [] });
    expect(calls).toEqual([['api/dev/T1', 'api/dev/T2'], ['api/dev/T3']]);
  });

  it("reads no target in hand (the page's own values, or `known`) and still reveals it via its referrer", async () => {
    // Prepare
    const { read, calls } = fakeStore({});
    const known = new Map<string, TargetRead<Secret>>([['api/prod/K', { status: 'value', secret: { id: 'sec_K' }, text: 'k' }]]);
    // Act
    const [a, b] = await resolveReferences([root('A', '${B}/${prod.K}'), root('B', 'b')], read, { known });
    // Assess
    expect(a).toEqual({
      ok: true,
      value: 'b/k',
      revealed: [
        { secret: { id: 'sec_api/dev/B' }, path: 'api/dev/B', via: 'sec_api/dev/A' },
        { secret: { id: 'sec_K' }, path: 'api/prod/K', via: 'sec_api/dev/A' },
      ],
    });
    expect(b).toMatchObject({ ok: true, value: 'b' });
    expect(calls).toEqual([]);
  });

  it('answers a value of the page that does not parse as unresolvable, reading nothing', async () => {
    // Prepare
    const { read, calls } = fakeStore({});
    // Act
    const [broken] = await resolveReferences([root('A', 'pw=${')], read);
    // Assess
    expect(broken).toEqual({ ok: false, problems: [{ reference: '', reason: 'unresolvable' }] });
    expect(calls).toEqual([]);
  });
});
