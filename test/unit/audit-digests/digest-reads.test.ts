import { describe, expect, it } from 'vitest';
import { roleAuthority } from '../../../shared/access/permissions.ts';
import { makeDigestReads } from '../../../shared/audit-digests/digest-reads.ts';
import type { Principal } from '../../../shared/platform/principal.ts';
import { principal } from '../support/fakes.ts';

const person = (role: 'admin' | 'viewer'): Principal =>
  principal({ kind: 'user', actorSub: `usr_${role}`, credentialId: `usr_${role}`, authority: roleAuthority(role) });

function reads() {
  const asked: unknown[] = [];
  const service = makeDigestReads({
    store: {
      listDigests: async (workspaceId, page, range) => {
        asked.push({ workspaceId, page, range });
        return { items: [], nextCursor: null, hasMore: false };
      },
    },
    publicKeyPem: async () => '-----BEGIN PUBLIC KEY-----\n...',
  });
  return { service, asked };
}

describe("the digests' reads", () => {
  it("lists an admin's workspace's digests, the whole range when none is named; FORBIDDEN to a viewer, nothing read", async () => {
    // Prepare
    const { service, asked } = reads();
    // Act
    await service.listDigests(person('admin'), { limit: 10 }, {});
    await service.listDigests(person('admin'), { limit: 10 }, { since: 5, until: 9 });
    const refused = service.listDigests(person('viewer'), { limit: 10 }, {});
    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(asked).toEqual([
      { workspaceId: person('admin').workspaceId, page: { limit: 10 }, range: { since: 0, until: Date.parse('9999-12-31T23:59:59.999Z') } },
      { workspaceId: person('admin').workspaceId, page: { limit: 10 }, range: { since: 5, until: 9 } },
    ]);
  });

  it('answers the public key to any credential of the workspace, a viewer too', async () => {
    // Act
    const key = await reads().service.publicKey(person('viewer'));
    // Assess
    expect(key).toEqual({ pem: '-----BEGIN PUBLIC KEY-----\n...' });
  });
});
