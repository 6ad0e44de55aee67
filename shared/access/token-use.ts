import type { TokenItem } from '../workspaces/index.ts';

/**
 * A login's token works one way only (decisions.md, "Hardening v1.4"): the session token of temporary AWS
 * credentials travels in clear in `X-Amz-Security-Token` on every signed request (a proxy's log, `aws --debug`), so
 * were it also a bearer token, whoever saw one request's headers would hold a credential without the secret key,
 * which undoes what the signature protects. The login marks the form it answered on the token's item (`format`), and
 * both authenticators ask this before they admit the token.
 */

/** How a request presents an issued token: `Authorization: Bearer`, or `X-Amz-Security-Token` of a SigV4 signature. */
export type TokenUse = 'bearer' | 'aws_session';

/**
 * Why the token item may not authenticate presented as `use`, or undefined when it may. A login token without a
 * mark was issued before the mark existed and may have been answered in either form: it is refused as a bearer
 * token (the one use that exposes a credential; an SDK logs in again after the 401, and such tokens expire within
 * their key's `tokenTtlSeconds`, 12 hours at most) and still signs as a session token, which gives nothing to whoever
 * holds only the token (the key pair is derived from it under the service's MAC key and was only ever answered by a
 * login in `aws` form). Tokens that are not a login's (API keys, an access key's own `st_` token) are bearer tokens.
 */
export function tokenUseRefusal(record: Pick<TokenItem, 'keyRevision' | 'format'>, use: TokenUse): string | undefined {
  // Only a login's token carries the key revision it was issued at.
  const login = record.keyRevision !== undefined;
  if (use === 'aws_session') {
    return login && record.format !== 'token'
      ? undefined
      : 'only the session token of temporary AWS credentials (a login with format aws) is a session token';
  }
  if (record.format === 'aws') {
    return 'this is the session token of temporary AWS credentials: it works only as X-Amz-Security-Token of a signed request to the AWS API';
  }
  if (login && record.format === undefined) return 'this login token was issued before v1.4 told its forms apart: log in again';
  return undefined;
}
