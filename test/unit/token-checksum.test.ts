import { describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { makeAuthenticator } from '../../shared/auth/authenticate.ts';
import { issueToken } from '../../shared/auth/tokens.ts';
import { AuthRequiredError } from '../../shared/errors.ts';
import { makeStore } from '../../shared/store/index.ts';

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';

describe('forged tokens cost nothing', () => {
  it('refuses a token whose checksum fails with AUTH_REQUIRED and no DynamoDB request', async () => {
    // Prepare: the real store over a document client that records every request
    const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const dynamodb = mockClient(doc);
    const authenticate = makeAuthenticator({ store: makeStore(doc, 'T'), clock: { now: () => Date.now() } });
    const token = issueToken('apiKey', WS);
    const forged = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    // Act
    const refused = authenticate(`Bearer ${forged}`);
    // Assess
    await expect(refused).rejects.toEqual(new AuthRequiredError('Authorization: the token is not valid'));
    expect(dynamodb.calls()).toHaveLength(0);
  });
});
