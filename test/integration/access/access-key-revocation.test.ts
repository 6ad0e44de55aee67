import { beforeAll, describe, expect, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

/** The fields decisions.md gives an access key record; an answer carries these and nothing else. */
const ACCESS_KEY_FIELDS = [
  'allowedCidrs',
  'auth',
  'createdAt',
  'createdBy',
  'expiresAt',
  'id',
  'identityId',
  'lastUsedAt',
  'name',
  'permissions',
  'revokedAt',
  'status',
  'tokenPrefix',
  'tokenTtlSeconds',
];

describe('revoking an access key', () => {
  let ws: Ws;
  beforeAll(async () => {
    ws = await newWorkspace();
  });

  it('six parallel revokes of one key answer only the record fields, whichever wins the race', async () => {
    // Prepare
    const key = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'raced' } })).body.data;
    // Act
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', `/api/v1/access-keys/${key.id}/revoke`, { token: ws.apiKey })),
    );
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body.data).sort()).toEqual(ACCESS_KEY_FIELDS);
      expect(answer.body.data.status).toBe('revoked');
    }
  });
});
