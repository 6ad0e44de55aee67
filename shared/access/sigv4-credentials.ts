import { AuthRequiredError } from '../platform/errors.ts';
import { awsKeyContext } from '../platform/crypto/context.ts';
import type { Cipher, SealedValue } from '../platform/crypto/envelope.ts';
import type { Authenticated, PrefetchKeys, RequestOrigin } from '../platform/http/authentication.ts';
import { admitCredential, type AdmissionDeps } from './admit-credential.ts';
import { AWS_KEY_ID } from './aws-keys.ts';
import { AWS_SESSION_KEY_ID, awsSessionCredentials } from './aws-session.ts';
import { MacKeyMissingError, type ServiceMacs } from '../platform/crypto/mac-key.ts';
import { checksumHolds, hashToken, issuedTokenShape } from './tokens.ts';
import { tokenUseRefusal } from './token-use.ts';
import type { WorkspaceStore } from '../workspaces/index.ts';

/**
 * Who signed a request to the AWS API adapter (decisions.md, "The AWS Secrets Manager API"): the access key with
 * auth `aws_sigv4` whose key id the signature names. Its token item (found by the key id's hash) carries the secret
 * half, sealed; the signature is checked by the adapter's verifier (shared/aws/sigv4.ts) with it, and the key then
 * passes what every credential passes (admitCredential: revoked, expired, networks, workspace).
 *
 * Per container, a key id's workspace and its opened secret are kept for at most 15 minutes, so that a steady stream
 * of signed calls reads the token item, the workspace and the route's items in one round trip (as a bearer token
 * does, whose form names its workspace) and costs no KMS request; a changed secret (its sealed form differs) is
 * opened again, and revocation and every change of the key are read on every request.
 */

/** A key id that names no key, or a revoked or expired one: AWS answers UnrecognizedClientException. */
export class UnrecognizedKeyError extends AuthRequiredError {}

/** Temporary credentials past their expiry: AWS answers ExpiredTokenException. */
export class ExpiredSessionError extends AuthRequiredError {}

/** A signature that is not the one the key's secret makes: AWS answers InvalidSignatureException. */
export class SignatureMismatchError extends AuthRequiredError {}

/** How long a container keeps an opened secret access key. */
export const SECRET_CACHE_MS = 15 * 60_000;

/** The most keys a container remembers: past it, the one remembered longest ago is dropped (read again if it returns). */
export const MAX_KNOWN_KEYS = 1000;

export interface SigV4AuthenticatorDeps extends AdmissionDeps {
  store: AdmissionDeps['store'] & Pick<WorkspaceStore, 'getToken' | 'getCredentialContext'>;
  cipher: Pick<Cipher, 'decrypt'>;
  /** The service MAC keys: token checksums, and the key pairs of temporary credentials (shared/access/aws-session.ts). */
  macs: () => Promise<ServiceMacs>;
}

/** What the adapter knows of the request: the key id it names, and a check of the signature with a secret. */
export interface SignedBy {
  accessKeyId: string;
  /** `X-Amz-Security-Token`: the session token of temporary credentials (a login's `st_` token). */
  sessionToken?: string | undefined;
  /** True when the request's signature is the one `secretAccessKey` makes. */
  signedWith(secretAccessKey: string): Promise<boolean>;
}

interface KnownKey {
  workspaceId: string;
  /** The sealed secret's ciphertext, to tell whether the secret opened is still this key's. */
  sealed?: string;
  secret?: string;
  until: number;
}

export function makeSigV4Authenticator(deps: SigV4AuthenticatorDeps) {
  const known = new Map<string, KnownKey>();

  const secretOf = async (entry: KnownKey, accessKeyId: string, sealed: SealedValue, now: number): Promise<string> => {
    if (entry.secret !== undefined && entry.sealed === sealed.ciphertext && entry.until > now) return entry.secret;
    const secret = await deps.cipher.decrypt(sealed, awsKeyContext(entry.workspaceId, accessKeyId));
    Object.assign(entry, { sealed: sealed.ciphertext, secret, until: now + SECRET_CACHE_MS });
    return secret;
  };

  const unrecognized = () => new UnrecognizedKeyError('The security token included in the request is invalid.');
  const mismatch = () =>
    new SignatureMismatchError(
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    );

  /** Admits a credential whose signature held; a revoked or expired one is one AWS no longer knows. */
  const admit = async (...args: Parameters<typeof admitCredential>) => {
    try {
      return await admitCredential(...args);
    } catch (error) {
      if (error instanceof AuthRequiredError && !(error instanceof UnrecognizedKeyError)) throw unrecognized();
      throw error;
    }
  };

  /**
   * Temporary credentials: the session token is a login's `st_` token in AWS form, checked as a bearer token is (its
   * checksum before any read, its item strongly consistent with its key's state), and the key pair is derived from it
   * again.
   */
  async function authenticateSession(signed: SignedBy, sessionToken: string, prefetch: PrefetchKeys, origin: RequestOrigin) {
    const shape = issuedTokenShape(sessionToken);
    if (!shape || shape.kind !== 'machine' || !AWS_SESSION_KEY_ID.test(signed.accessKeyId)) throw unrecognized();
    let macs: ServiceMacs;
    try {
      macs = await deps.macs();
    } catch (error) {
      if (error instanceof MacKeyMissingError) throw unrecognized();
      throw error;
    }
    if (!checksumHolds(macs, shape)) throw unrecognized();
    const pair = awsSessionCredentials(macs, sessionToken);
    if (pair.accessKeyId !== signed.accessKeyId) throw unrecognized();
    const tokenHash = hashToken(sessionToken);
    const { workspaceId } = shape;
    const read = await deps.store.getCredentialContext(tokenHash, workspaceId, prefetch(workspaceId), { consistentWorkspace: true });
    const record = read.token;
    if (!record || record.workspaceId !== workspaceId || record.awsSecret) throw unrecognized();
    // A login token of the default form is no session token (token-use.ts): AWS's answer for an invalid one.
    if (tokenUseRefusal(record, 'aws_session')) throw unrecognized();
    if (!(await signed.signedWith(pair.secretAccessKey))) throw mismatch();
    if (record.expiresAt && Date.parse(record.expiresAt) <= deps.clock.now())
      throw new ExpiredSessionError('The security token included in the request is expired');
    return admit(deps, { tokenHash, record, workspace: read.workspace, prefetched: read.prefetched }, origin);
  }

  return async (signed: SignedBy, prefetch: PrefetchKeys = () => [], origin: RequestOrigin = {}): Promise<Authenticated> => {
    if (signed.sessionToken !== undefined) return authenticateSession(signed, signed.sessionToken, prefetch, origin);
    if (!AWS_KEY_ID.test(signed.accessKeyId)) throw unrecognized();
    const tokenHash = hashToken(signed.accessKeyId);
    const now = deps.clock.now();
    let entry = known.get(signed.accessKeyId);
    if (!entry || entry.until <= now) {
      // The first request of this key in this container: its workspace is on its token item.
      const found = await deps.store.getToken(tokenHash);
      if (!found?.awsSecret) throw unrecognized();
      entry = { workspaceId: found.workspaceId, until: now + SECRET_CACHE_MS };
      // Newest last, so the first is the one remembered longest ago; a bounded map, whatever the number of keys.
      known.delete(signed.accessKeyId);
      if (known.size >= MAX_KNOWN_KEYS) known.delete(known.keys().next().value!);
      known.set(signed.accessKeyId, entry);
    }
    const { workspaceId } = entry;
    // The key's state (revoked, rules, CIDRs) is on its own item, read strongly consistent; the workspace and what the
    // operation reads ahead are read as REST's reveal reads them (eventually consistent beside it, in parallel).
    const read = await deps.store.getCredentialContext(tokenHash, workspaceId, prefetch(workspaceId));
    const record = read.token;
    if (!record?.awsSecret || record.workspaceId !== workspaceId) {
      known.delete(signed.accessKeyId);
      throw unrecognized();
    }
    const accessKeyId = record.credentialId;
    if (!(await signed.signedWith(await secretOf(entry, accessKeyId, record.awsSecret, now)))) throw mismatch();
    return admit(deps, { tokenHash, record, workspace: read.workspace, prefetched: read.prefetched }, origin);
  };
}

export type SigV4Authenticator = ReturnType<typeof makeSigV4Authenticator>;
