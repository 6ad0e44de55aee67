import { describe, expect, it } from 'vitest';
import { onFirstUse } from '../../../shared/platform/on-first-use.ts';

/** An object of async methods that counts its calls and answers with its own state (so `this` matters). */
function counter() {
  return {
    calls: 0,
    async add(n: number): Promise<number> {
      this.calls += n;
      return this.calls;
    },
    async fail(): Promise<never> {
      throw new Error('refused');
    },
  };
}

describe('onFirstUse', () => {
  it('loads nothing until a method is called, then loads once for every call, concurrent ones included', async () => {
    // Prepare
    let loads = 0;
    const stand = onFirstUse(['add'], async () => {
      loads++;
      return counter();
    });
    expect(loads).toBe(0);
    // Act
    const answers = await Promise.all([stand.add(1), stand.add(2), stand.add(3)]);
    const later = await stand.add(4);
    // Assess: one object, its own `this`, every call forwarded with its arguments
    expect(loads).toBe(1);
    expect(answers).toEqual([1, 3, 6]);
    expect(later).toBe(10);
  });

  it('hands a failed load to every waiting call and tries again on the next one', async () => {
    // Prepare
    let loads = 0;
    const stand = onFirstUse(['add'], async () => {
      loads++;
      if (loads === 1) throw new Error('chunk not found');
      return counter();
    });
    // Act
    const first = await Promise.allSettled([stand.add(1), stand.add(1)]);
    const second = await stand.add(5);
    // Assess
    expect(first.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(second).toBe(5);
    expect(loads).toBe(2);
  });

  it("passes a method's own rejection through, and forwards only the methods it names", async () => {
    // Prepare
    const stand = onFirstUse(['fail'], async () => counter());
    // Act and assess
    await expect(stand.fail()).rejects.toThrow('refused');
    expect(Object.keys(stand)).toEqual(['fail']);
  });
});
