import { LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, type BatchGetCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { makeSecretRoutes } from '../../../functions/secrets/routes.ts';
import { rotationViewOf } from '../../../shared/rotation/index.ts';
import { makeAuthenticator } from '../../../shared/access/authenticate.ts';
import { hashToken, issueToken } from '../../../shared/access/tokens.ts';
import { newId } from '../../../shared/platform/ids.ts';
import { itemKeyString, type ItemKey } from '../../../shared/platform/prefetch.ts';
import { makeSecretService } from '../../../shared/secrets/secret-service.ts';
import { composeStores } from '../../../shared/platform/store/compose.ts';
import { makeCursorKeyLoader } from '../../../shared/platform/store/cursor-key.ts';
import { makePager } from '../../../shared/platform/store/pager.ts';
import { secretsStore } from '../../../shared/secrets/secret-wiring.ts';
import { makeWorkspaceStore } from '../../../shared/workspaces/index.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { fakeCipher, fakeClock, T0, TEST_MACS, testMacs } from '../support/fakes.ts';

/**
 * A login token follows its key at once on every route (decisions.md, "Hardening v1.3"): its key's state is on the
 * workspace item, so that item is read strongly consistently with an `st_` token even on the reveal routes, whose
 * own items are read ahead eventually consistently. DynamoDB Local is always consistent, so only the requests can
 * show it: the real authenticator and store against a client that records them, with the reveal routes' own prefetch.
 */

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const db = { doc, tableName: 'T' };
// The secrets function's stores and the authenticator's (api-runtime.ts), as the secrets function composes them.
const store = composeStores(makeWorkspaceStore(db), secretsStore(db, makePager(db, makeCursorKeyLoader(db))));
const clock = fakeClock();
const routes = makeSecretRoutes(
  makeSecretService({ store, cipher: fakeCipher(), clock, place: LOCAL_PLACE, revealsPerMinute: 120, rotationOf: rotationViewOf(store) }),
  {} as never,
  {} as never,
);
const authenticate = makeAuthenticator({ store, clock, macs: testMacs });

const WS = newId('workspace');
const ACCESS_KEY = newId('accessKey');
const ENV = newId('environment');

/** What each reveal route's prefetch is asked with, as API Gateway hands the route its input. */
const REVEALS = [
  ['POST /api/v1/secrets/{secretId}/reveal', { params: { secretId: newId('secret') }, query: {}, body: {} }],
  ['POST /api/v1/reveal', { params: {}, query: {}, body: { path: 'payments/prod/DB_PASSWORD' } }],
  ['POST /api/v1/environments/{envId}/secrets/reveal', { params: { envId: ENV }, query: {}, body: {} }],
] as const;

const lastMinute = new Date(T0 - 1000).toISOString();
const tokenItem = (kind: 'machine' | 'api_key') => ({
  kind,
  workspaceId: WS,
  credentialId: kind === 'machine' ? ACCESS_KEY : 'key_1',
  actorSub: kind === 'machine' ? newId('machineIdentity') : 'key_1',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: lastMinute,
  ...(kind === 'machine' && { keyRevision: 0, format: 'token' }),
});
const workspaceItem = { ...keys.workspace(WS), id: WS, name: 'w', accountId: 'acc_1', allowlisted: true, createdAt: '', updatedAt: '' };

/** Answers every read with the token item and the workspace item, whatever consistency it asked for. */
function answerReads(token: Record<string, unknown>) {
  const stored = new Map<string, Record<string, unknown>>([
    [itemKeyString(keys.token(token.tokenHash as string)), { ...keys.token(token.tokenHash as string), ...token }],
    [itemKeyString(keys.workspace(WS)), workspaceItem],
  ]);
  dynamodb.on(GetCommand).callsFake((input: { Key: ItemKey }) => ({ Item: stored.get(itemKeyString(input.Key)) }));
  dynamodb.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => {
    const requested = input.RequestItems!.T!.Keys as ItemKey[];
    return { Responses: { T: requested.flatMap((key) => stored.get(itemKeyString(key)) ?? []) } };
  });
}

/** The consistency each request read the workspace item with: `strong` or `eventual`, one entry per request. */
function workspaceReads(): string[] {
  const workspace = itemKeyString(keys.workspace(WS));
  const reads: string[] = [];
  for (const call of dynamodb.commandCalls(BatchGetCommand)) {
    const request = call.args[0].input.RequestItems!.T!;
    if ((request.Keys as ItemKey[]).some((key) => itemKeyString(key) === workspace))
      reads.push(request.ConsistentRead ? 'strong' : 'eventual');
  }
  for (const call of dynamodb.commandCalls(GetCommand)) {
    if (itemKeyString(call.args[0].input.Key as ItemKey) === workspace)
      reads.push(call.args[0].input.ConsistentRead ? 'strong' : 'eventual');
  }
  return reads;
}

beforeEach(() => {
  dynamodb.reset();
  clock.set(T0);
});

describe("the workspace item, where a login key's state is, read with the credential on the reveal routes", () => {
  it.each(REVEALS)(
    "%s: strongly consistent with the st_ token, in the same request, beside the eventual read of the route's items",
    async (routeKey, input) => {
      // Prepare
      const token = issueToken(TEST_MACS, 'machine', WS);
      answerReads({ ...tokenItem('machine'), tokenHash: hashToken(token) });
      const prefetch = (workspaceId: string) => routes[routeKey].prefetch!({ workspaceId, ...input });
      // Act
      const { principal } = await authenticate(`Bearer ${token}`, prefetch);
      // Assess: the route's items are eventually consistent (the check is not vacuous), the workspace is not
      expect(principal).toMatchObject({ kind: 'machine', credentialId: ACCESS_KEY });
      expect(prefetch(WS).every((key) => key.eventual)).toBe(true);
      expect(workspaceReads()).toEqual(['strong']);
      const strong = dynamodb.commandCalls(BatchGetCommand).find((call) => call.args[0].input.RequestItems!.T!.ConsistentRead);
      expect(strong?.args[0].input.RequestItems!.T!.Keys).toEqual([keys.token(hashToken(token)), keys.workspace(WS)]);
      // Two requests in parallel, as with any other token: no round trip is added.
      expect(dynamodb.calls()).toHaveLength(2);
    },
  );

  it("keeps the API key's reads as they were: its token strongly consistent alone, the workspace with the route's items", async () => {
    // Prepare
    const token = issueToken(TEST_MACS, 'apiKey', WS);
    answerReads({ ...tokenItem('api_key'), tokenHash: hashToken(token) });
    const [routeKey, input] = REVEALS[1];
    // Act
    await authenticate(`Bearer ${token}`, (workspaceId) => routes[routeKey].prefetch!({ workspaceId, ...input }));
    // Assess
    expect(workspaceReads()).toEqual(['eventual']);
    expect(dynamodb.commandCalls(GetCommand).map((call) => [call.args[0].input.Key, call.args[0].input.ConsistentRead])).toEqual([
      [keys.token(hashToken(token)), true],
    ]);
    expect(dynamodb.calls()).toHaveLength(2);
  });
});
