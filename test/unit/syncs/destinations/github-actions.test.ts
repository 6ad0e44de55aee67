import sodium from 'libsodium-wrappers';

type KeyPair = { publicKey: Uint8Array; privateKey: Uint8Array };
import { beforeAll, describe, expect, it } from 'vitest';
import type { GuardedGetResult, GuardedRequestOptions } from '../../../../shared/net/guarded-get.ts';
import { DestinationError } from '../../../../shared/syncs/destinations/destination.ts';
import { githubSecretName, makeGithubActionsDestination } from '../../../../shared/syncs/destinations/github-actions.ts';
import type { GithubActionsDestination } from '../../../../shared/syncs/sync-records.ts';
import { destinationContext, refusal } from '../support.ts';

const TOKEN = 'ghp_unit-test-token-abcdef';
const context = destinationContext({ token: TOKEN });
const repository: GithubActionsDestination = { type: 'github-actions', repository: 'acme/web' };

interface Sent {
  url: string;
  options: GuardedRequestOptions;
}

/** A transport that records requests and answers from `answer` (default: the public key, then 201s). */
function transport(pair: KeyPair, answer: (sent: Sent) => GuardedGetResult | undefined = () => undefined) {
  const sent: Sent[] = [];
  const send = async (url: string, options: GuardedRequestOptions): Promise<GuardedGetResult> => {
    sent.push({ url, options });
    const given = answer({ url, options });
    if (given !== undefined) return given;
    if (url.endsWith('/public-key')) return json(200, { key_id: 'k-1', key: sodium.to_base64(pair.publicKey, 1) });
    return json(options.method === 'DELETE' ? 204 : 201, undefined);
  };
  return { sent, send };
}

const json = (statusCode: number, body: unknown): GuardedGetResult => ({
  kind: 'answered',
  statusCode,
  body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
});

describe('the GitHub Actions destination (github-actions.ts)', () => {
  let pair: KeyPair;
  beforeAll(async () => {
    await sodium.ready;
    pair = sodium.crypto_box_keypair();
  });

  it('names secrets by the key with / and . as _, upper case', () => {
    expect(githubSecretName('db.url')).toBe('DB_URL');
    expect(githubSecretName('stripe/api.key')).toBe('STRIPE_API_KEY');
    expect(githubSecretName('Already_OK')).toBe('ALREADY_OK');
  });

  it("reads the public key once per push and PUTs each value sealed with it, with GitHub's headers", async () => {
    const github = transport(pair);
    const destination = makeGithubActionsDestination(repository, context, github.send);
    await destination.put([
      { key: 'db.url', value: 'postgres://x' },
      { key: 'API_KEY', value: 'k' },
    ]);
    expect(github.sent.map((s) => `${s.options.method} ${s.url}`)).toEqual([
      'GET https://api.github.com/repos/acme/web/actions/secrets/public-key',
      'PUT https://api.github.com/repos/acme/web/actions/secrets/DB_URL',
      'PUT https://api.github.com/repos/acme/web/actions/secrets/API_KEY',
    ]);
    expect(github.sent[0]!.options.headers).toMatchObject({
      Authorization: `Bearer ${TOKEN}`,
      Accept: 'application/vnd.github+json',
      'X-GitHub-Api-Version': '2022-11-28',
    });
    const body = JSON.parse(github.sent[1]!.options.body!) as { encrypted_value: string; key_id: string };
    expect(body.key_id).toBe('k-1');
    const opened = sodium.crypto_box_seal_open(sodium.from_base64(body.encrypted_value, 1), pair.publicKey, pair.privateKey);
    expect(sodium.to_string(opened)).toBe('postgres://x');
  });

  it("an environment's secrets live under environments/{env}, its parts encoded; apiUrl replaces GitHub's", async () => {
    const github = transport(pair);
    const destination = { ...repository, environment: 'prod eu', apiUrl: 'https://ghe.example.com/api/v3/' };
    await makeGithubActionsDestination(destination, context, github.send).remove(['a.b']);
    expect(github.sent[0]!.url).toBe('https://ghe.example.com/api/v3/repos/acme/web/environments/prod%20eu/secrets/A_B');
  });

  it('refuses two keys of one push that are one secret, before any request', async () => {
    const github = transport(pair);
    const put = makeGithubActionsDestination(repository, context, github.send).put([
      { key: 'a.b', value: '1' },
      { key: 'a/b', value: '2' },
    ]);
    expect(await refusal(put)).toBe('GitHub: keys a.b and a/b are both the secret A_B');
    expect(github.sent).toHaveLength(0);
  });

  it('a DELETE answered 404 is done; another status is a DestinationError', async () => {
    const github = transport(pair, ({ url }) =>
      url.endsWith('/GONE') ? json(404, { message: 'Not Found' }) : json(500, { message: 'Server Error' }),
    );
    const destination = makeGithubActionsDestination(repository, context, github.send);
    await destination.remove(['GONE']);
    expect(await refusal(destination.remove(['BROKEN']))).toBe('GitHub DELETE secret BROKEN: 500 (Server Error)');
  });

  it("errors carry GitHub's status and message, never the token (a message quoting it is left out)", async () => {
    const revoked = transport(pair, () => json(401, { message: 'Bad credentials' }));
    expect(await refusal(makeGithubActionsDestination(repository, context, revoked.send).put([{ key: 'A', value: 'v' }]))).toBe(
      'GitHub public key: 401 (Bad credentials)',
    );
    const echo = transport(pair, ({ url }) => (url.endsWith('/A') ? json(422, { message: `token ${TOKEN} lacks scope` }) : undefined));
    const message = await refusal(makeGithubActionsDestination(repository, context, echo.send).put([{ key: 'A', value: 'v' }]));
    expect(message).toBe('GitHub PUT secret A: 422');
    const refused = transport(pair, () => ({ kind: 'refused', reason: 'blocked: 10.0.0.1 (private)' }));
    expect(await refusal(makeGithubActionsDestination(repository, context, refused.send).remove(['A']))).toBe(
      'GitHub DELETE secret A: blocked: 10.0.0.1 (private)',
    );
  });

  it('refuses a sync without a token, and a repository that is not owner/repo', () => {
    expect(() => makeGithubActionsDestination(repository, { ...context, token: undefined })).toThrow(DestinationError);
    expect(() => makeGithubActionsDestination({ ...repository, repository: 'acme' }, context)).toThrow('is not owner/repo');
  });
});
