import { describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { makeAuthenticator } from '../../../shared/access/authenticate.ts';
import { issueToken } from '../../../shared/access/tokens.ts';
import { AuthRequiredError } from '../../../shared/platform/errors.ts';
import { makeWorkspaceStore } from '../../../shared/workspaces/index.ts';
import { TEST_MACS, testMacs } from '../support/fakes.ts';
import { deriveServiceMacs } from '../../../shared/platform/crypto/mac-key.ts';

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';

describe('forged tokens cost nothing', () => {
  /** The real store over a document client that records every request, and an authenticator over it. */
  function setup() {
    const doc = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
    );
    const dynamodb = mockClient(doc);
    dynamodb.onAnyCommand().resolves({ Responses: { T: [] } });
    return {
      dynamodb,
      authenticate: makeAuthenticator({
        store: makeWorkspaceStore({ doc, tableName: 'T' }),
        clock: { now: () => Date.now() },
        macs: testMacs,
      }),
    };
  }

  it('refuses forged, mistyped, old-form, checksum-less and other-deployment tokens with AUTH_REQUIRED and no DynamoDB request', async () => {
    // Prepare
    const { dynamodb, authenticate } = setup();
    const token = issueToken(TEST_MACS, 'apiKey', WS);
    const random = token.slice(8, 8 + 43);
    const refused = [
      `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`,
      `${token.slice(0, 8 + 43)}${token[8 + 43] === 'A' ? 'B' : 'A'}${token.slice(8 + 43 + 1)}`,
      `sk_live_${random}${'x'.repeat(8)}${WS.slice(3)}`,
      `sk_live_${random}0Q9SeQ${WS.slice(3)}`,
      `sk_live_${random}${WS.slice(3)}`,
      issueToken(deriveServiceMacs({ token: Buffer.alloc(32, 9) }), 'machine', WS),
    ];
    // Act / Assess
    for (const forged of refused) {
      await expect(authenticate(`Bearer ${forged}`), forged).rejects.toEqual(
        new AuthRequiredError('Authorization: the token is not valid'),
      );
    }
    expect(dynamodb.calls()).toHaveLength(0);
  });

  it('reads the table for a token whose keyed checksum holds', async () => {
    // Prepare
    const { dynamodb, authenticate } = setup();
    // Act
    await expect(authenticate(`Bearer ${issueToken(TEST_MACS, 'machine', WS)}`)).rejects.toBeInstanceOf(AuthRequiredError);
    // Assess: unknown to the table, but it took one read to find out
    expect(dynamodb.calls()).toHaveLength(1);
  });
});
