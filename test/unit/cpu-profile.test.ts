import { describe, expect, it } from 'vitest';
import { chargeToOwnCode } from '../../bench/cpu-profile.ts';

const ROOT = new URL('../../', import.meta.url).href;

/** A profile whose nodes form the given parent → child chains; each sample is 1,000 µs. */
function profile(frames: { id: number; parent?: number; name: string; url: string }[], samples: number[]) {
  return {
    nodes: frames.map((f) => ({
      id: f.id,
      callFrame: { functionName: f.name, url: f.url, lineNumber: 9 },
      children: frames.filter((c) => c.parent === f.id).map((c) => c.id),
    })),
    samples,
    timeDeltas: samples.map(() => 1000),
  };
}

describe('bench/cpu-profile.ts chargeToOwnCode', () => {
  const frames = [
    { id: 1, name: '(root)', url: '' },
    { id: 2, name: 'reveal', url: `${ROOT}shared/secrets/secret-reveals.ts`, parent: 1 },
    { id: 3, name: 'send', url: `${ROOT}node_modules/@smithy/core/dist-cjs/index.js`, parent: 2 },
    { id: 4, name: 'createHmac', url: 'node:crypto', parent: 3 },
    { id: 5, name: 'parse', url: `${ROOT}node_modules/@smithy/core/dist-cjs/index.js`, parent: 1 },
    { id: 6, name: '(garbage collector)', url: '', parent: 1 },
    { id: 7, name: 'request', url: `${ROOT}bench/cpu-floor.ts`, parent: 1 },
    { id: 8, name: 'send', url: `${ROOT}node_modules/@smithy/core/dist-cjs/index.js`, parent: 7 },
    { id: 9, name: '(idle)', url: '', parent: 1 },
  ];

  it('charges SDK and Node work to the project function that calls it, and the rest to its own rows', () => {
    const charged = chargeToOwnCode(profile(frames, [2, 3, 4, 5, 5, 6, 7, 8, 9, 9]));
    expect(Object.fromEntries(charged)).toEqual({
      'reveal shared/secrets/secret-reveals.ts:10': 3,
      '(SDK and Node, no project frame on the stack)': 2,
      '(garbage collector)': 1,
      '(bench)': 2,
    });
  });
});
