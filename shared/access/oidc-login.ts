/**
 * The checks of an OIDC login (decisions.md, "Workload identity: login with AWS IAM or OIDC"): a JWT from the access
 * key's issuer, RS256 or ES256, whose signature holds with a key of the issuer's JWKS (found by discovery, fetched
 * through the SSRF guard: oidc-keys.ts), whose `aud` names the key's audience, which is in its lifetime (60 s of
 * leeway), whose `sub` matches the key's subject pattern and whose claims equal the key's. Each check is one function
 * below; a refusal names it and never quotes the token, its signature or its claims.
 */
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { AllowedCidrs, LookupAll } from '../net/ssrf.ts';
import { isAcceptedAlgorithm, makeIssuerVerifiers, OidcLoginRefused, type IssuerVerifier } from './oidc-keys.ts';
import { globMatcher } from '../platform/glob.ts';

/** The `auth` of an access key that logs in with OIDC. */
export interface OidcKeyAuth {
  type: 'oidc';
  issuer: string;
  audience: string;
  /** A pattern with the globs of permissions: `*` stops at `/`, `**` crosses it. */
  subject: string;
  claims?: Record<string, string> | undefined;
}

/** The outcome of a login: the token's subject, or the failed check (`unavailable`: the issuer could not be reached). */
export type OidcVerdict =
  | { ok: true; subject: string; issuer: string }
  | { ok: false; unavailable?: true; reason: string; message: string };

/** A JWT larger than this is refused before it is parsed. */
export const MAX_JWT_BYTES = 16 * 1024;

/** How far `exp`, `nbf` and `iat` may be off, in seconds, for clocks that disagree. */
export const CLOCK_LEEWAY_SECONDS = 60;

type Claims = Record<string, unknown>;

const refuse = (reason: string, message: string): never => {
  throw new OidcLoginRefused(reason, message);
};

/**
 * The OIDC login check, made once per container: it keeps one verifier per issuer (discovery and JWKS fetched on
 * first use, through the SSRF guard with `allowPrivateCidrs`, from config `login.oidcAllowPrivateCidrs`). The answer
 * is a verdict, never a throw for a refused token.
 */
export function makeOidcLogin(options: {
  allowPrivateCidrs: AllowedCidrs;
  lookup?: LookupAll;
  now?: () => number;
}): (auth: OidcKeyAuth, jwt: string) => Promise<OidcVerdict> {
  const verifierFor = makeIssuerVerifiers({ allow: options.allowPrivateCidrs, lookup: options.lookup });
  const now = options.now ?? Date.now;
  return async (auth, jwt) => {
    try {
      const subject = await checkLogin(auth, jwt, verifierFor, now() / 1000);
      return { ok: true, subject, issuer: auth.issuer };
    } catch (error) {
      if (!(error instanceof OidcLoginRefused)) throw error;
      const { reason, message } = error;
      return error.unavailable ? { ok: false, unavailable: true, reason, message } : { ok: false, reason, message };
    }
  };
}

/**
 * The checks in order: what costs nothing and decides which keys to fetch (size, form, alg, iss) before any fetch,
 * then the signature, then the claims of a token known to be the issuer's. Answers the subject.
 */
async function checkLogin(
  auth: OidcKeyAuth,
  jwt: string,
  verifierFor: (issuer: string) => Promise<IssuerVerifier>,
  nowSeconds: number,
): Promise<string> {
  checkSize(jwt);
  const unverified = decodeUnverified(jwt);
  checkAlgorithm(unverified.header);
  checkIssuer(unverified.payload, auth.issuer);
  const payload = await checkSignature(await verifierFor(auth.issuer), jwt);
  checkAudience(payload, auth.audience);
  checkExpiry(payload, nowSeconds);
  checkNotBefore(payload, nowSeconds);
  checkIssuedAt(payload, nowSeconds);
  const subject = checkSubject(payload, auth.subject);
  checkClaims(payload, auth.claims ?? {});
  return subject;
}

/** At most MAX_JWT_BYTES (UTF-8), counted before anything is parsed. */
export function checkSize(jwt: string): void {
  if (typeof jwt !== 'string') refuse('format', 'jwt: must be a string');
  if (Buffer.byteLength(jwt, 'utf8') > MAX_JWT_BYTES) refuse('size', `jwt: larger than ${MAX_JWT_BYTES} bytes`);
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A compact JWS: three base64url parts (no padding), the first two JSON objects. Nothing in it is trusted yet. */
export function decodeUnverified(jwt: string): { header: Claims; payload: Claims } {
  const parts = jwt.split('.');
  const [header, payload, signature] = parts;
  if (parts.length !== 3 || !BASE64URL.test(header!) || !BASE64URL.test(payload!) || !/^[A-Za-z0-9_-]*$/.test(signature!)) {
    refuse('format', 'jwt: not a compact JWS (three base64url parts)');
  }
  return { header: jsonObject(header!, 'header'), payload: jsonObject(payload!, 'payload') };
}

/** One base64url part as a JSON object; the parser's message (which can quote the part) is not kept. */
function jsonObject(part: string, name: string): Claims {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) refuse('format', `jwt: the ${name} is not a JSON object`);
  return value as Claims;
}

/** RS256 or ES256: `none`, HMAC (whose key a verifier would have to share) and every other algorithm are refused. */
export function checkAlgorithm(header: Claims): void {
  if (!isAcceptedAlgorithm(header.alg)) refuse('algorithm', 'jwt: alg must be RS256 or ES256');
}

/** `iss` is exactly the access key's issuer: checked before the keys are fetched, since the key's issuer names them. */
export function checkIssuer(payload: Claims, issuer: string): void {
  if (payload.iss !== issuer) refuse('issuer', "jwt: iss is not the access key's issuer");
}

/**
 * The signature, by aws-jwt-verify with a key of the issuer's JWKS named by `kid`; the library's errors become the
 * check that failed (their messages can quote the token, so none is passed on).
 */
async function checkSignature(verifier: IssuerVerifier, jwt: string): Promise<JwtPayload> {
  try {
    return await verifier.verify(jwt);
  } catch (error) {
    if (error instanceof OidcLoginRefused) throw error;
    throw await refusalOfLibraryError(error);
  }
}

/** aws-jwt-verify's error as the check that failed, loaded with the library (its classes are its own instances). */
async function refusalOfLibraryError(error: unknown): Promise<OidcLoginRefused> {
  const errors = await import('aws-jwt-verify/error');
  if (error instanceof errors.JwtInvalidSignatureAlgorithmError)
    return new OidcLoginRefused('algorithm', "jwt: alg does not fit the issuer's key");
  if (error instanceof errors.JwtWithoutValidKidError) return new OidcLoginRefused('key', 'jwt: kid is required');
  if (error instanceof errors.KidNotFoundInJwksError || error instanceof errors.WaitPeriodNotYetEndedJwkError) {
    return new OidcLoginRefused('key', "jwt: kid is not among the issuer's signing keys");
  }
  if (
    error instanceof errors.JwkValidationError ||
    error instanceof errors.JwkInvalidUseError ||
    error instanceof errors.JwkInvalidKtyError
  ) {
    return new OidcLoginRefused('key', "jwt: the issuer's key for this kid is not a signing key");
  }
  if (error instanceof errors.JwksValidationError) return new OidcLoginRefused('discovery', 'issuer: the JWKS is not a JSON key set', true);
  if (error instanceof errors.FetchError) return new OidcLoginRefused('discovery', 'issuer: the JWKS could not be fetched', true);
  if (error instanceof errors.JwtParseError) return new OidcLoginRefused('format', 'jwt: a registered claim has the wrong type');
  if (error instanceof errors.JwtInvalidIssuerError) return new OidcLoginRefused('issuer', "jwt: iss is not the access key's issuer");
  // JwtInvalidSignatureError, and anything the key or signature could make the crypto layer throw: refused, not a 500.
  return new OidcLoginRefused('signature', "jwt: the signature does not verify with the issuer's key");
}

/** `aud` is the access key's audience, or an array that contains it. */
export function checkAudience(payload: Claims, audience: string): void {
  const { aud } = payload;
  const contains = aud === audience || (Array.isArray(aud) && aud.includes(audience));
  if (!contains) refuse('audience', "jwt: aud does not contain the access key's audience");
}

/** `exp` is required and must not be past (with the leeway). */
export function checkExpiry(payload: Claims, nowSeconds: number): void {
  const { exp } = payload;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) refuse('expired', 'jwt: exp is required');
  if ((exp as number) + CLOCK_LEEWAY_SECONDS <= nowSeconds) refuse('expired', 'jwt: the token has expired (exp)');
}

/** `nbf`, when present, must not be in the future (with the leeway). */
export function checkNotBefore(payload: Claims, nowSeconds: number): void {
  if (inTheFuture(payload.nbf, nowSeconds)) refuse('not_before', 'jwt: the token is not valid yet (nbf)');
}

/** `iat`, when present, must not be in the future (with the leeway). */
export function checkIssuedAt(payload: Claims, nowSeconds: number): void {
  if (inTheFuture(payload.iat, nowSeconds)) refuse('issued_at', 'jwt: iat is in the future');
}

/** A time claim that is present and either not a number or later than now plus the leeway. */
function inTheFuture(value: unknown, nowSeconds: number): boolean {
  if (value === undefined) return false;
  return typeof value !== 'number' || !Number.isFinite(value) || value - CLOCK_LEEWAY_SECONDS > nowSeconds;
}

/** `sub` matches the access key's pattern, whole (`*` stops at `/`, `**` crosses it). Answers the subject. */
export function checkSubject(payload: Claims, pattern: string): string {
  const { sub } = payload;
  if (typeof sub !== 'string' || sub === '') refuse('subject', 'jwt: sub is required');
  if (!globMatcher([pattern])(sub as string)) {
    refuse('subject', "jwt: sub does not match the access key's subject pattern");
  }
  return sub as string;
}

/** Each of the access key's claims is a string claim of the token with exactly that value. */
export function checkClaims(payload: Claims, expected: Record<string, string>): void {
  for (const [name, value] of Object.entries(expected)) {
    if (!Object.hasOwn(payload, name)) refuse('claim', `jwt: claim ${name} is missing`);
    if (typeof payload[name] !== 'string') refuse('claim', `jwt: claim ${name} is not a string`);
    if (payload[name] !== value) refuse('claim', `jwt: claim ${name} does not equal the access key's value`);
  }
}
