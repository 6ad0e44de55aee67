import { describe, expect, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';

/** A workspace holds at most 100 active access keys (decisions.md); a revoked key frees its slot once. */

describe('the cap on active access keys', () => {
  it('the 101st active access key is LIMIT_EXCEEDED, and a revoke frees a slot', async () => {
    // Prepare: 100 keys, made in parallel batches
    const ws = await newWorkspace();
    const create = (name: string) => call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name } });
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => create(`k${batch * 10 + i}`)));
      for (const answer of made) {
        expect(answer.status).toBe(201);
        ids.push(answer.body.data.id);
      }
    }
    // Act
    const over = await create('one too many');
    await call('POST', `/api/v1/access-keys/${ids[0]}/revoke`, { token: ws.apiKey });
    await call('POST', `/api/v1/access-keys/${ids[0]}/revoke`, { token: ws.apiKey });
    const freed = await create('in the freed slot');
    const overAgain = await create('over again');
    // Assess: a repeated revoke frees nothing more
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('LIMIT_EXCEEDED');
    expect(freed.status).toBe(201);
    expect(overAgain.body.error.code).toBe('LIMIT_EXCEEDED');
  });
});
