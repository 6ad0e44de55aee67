import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { IamLoginRefused, checkSignedRequest, principalArnOf, principalMatches } from './iam-login.ts';
import type { OidcKeyAuth, OidcVerdict } from './oidc-login.ts';
import { fromAllowedAddress } from './source-address.ts';
import type { StsVerdict } from './sts-replay.ts';
import { awsSessionCredentials } from './aws-session.ts';
import { hashToken, issueToken } from './tokens.ts';
import type { ServiceMacs } from '../platform/crypto/mac-key.ts';
import {
  ApiError,
  AuthRequiredError,
  ForbiddenError,
  RateLimitedError,
  ServiceUnavailableError,
  WorkspaceNotAllowlistedError,
} from '../platform/errors.ts';
import type { LoginBody } from './login-schemas.ts';
import { tokenScope } from './access-key-records.ts';
import type { LoginSpent, LoginStore, LoginTarget, LoginWindow } from './login-store.ts';

/**
 * Workload identity (decisions.md, "Workload identity: login with AWS IAM or OIDC"): a workload proves who it is
 * with a signed STS request or an OIDC token and gets a short-lived `st_` token of its access key, carrying the
 * key's rules and networks. The checks are shared/auth's (iam-login.ts, oidc-login.ts); this decides the order, the
 * answers and the audit.
 */

/** Successful logins per access key and clock minute (decisions.md, "Hardening v1.3"). */
export const LOGINS_PER_MINUTE = 60;

/** Refused logins per access key, source address and clock minute. */
export const REFUSED_LOGINS_PER_MINUTE = 10;

/**
 * Where the refusals of a request without a source address count: one bucket shared by all such requests. API
 * Gateway always gives one; only a caller of the handler itself could leave it out.
 */
export const NO_SOURCE_ADDRESS = 'none';

/** Times a login reads its key again when a revoke or a PATCH committed between its read and its token. */
const ISSUE_ATTEMPTS = 5;

export interface LoginDeps {
  store: Pick<LoginStore, 'findLoginTarget' | 'workspaceOfAccessKey' | 'readLoginAttempt' | 'issueLoginToken' | 'recordLoginRefusal'>;
  clock: Clock;
  macs: () => Promise<ServiceMacs>;
  /** Where IAM logins go and the server id they must sign; undefined where IAM login is not configured. */
  iam: { stsEndpoint: string | undefined; serverId: string | undefined };
  replayToSts: (url: string, headers: Record<string, string>, body: string) => Promise<StsVerdict>;
  verifyOidc: (auth: OidcKeyAuth, jwt: string) => Promise<OidcVerdict>;
}

/** Who logged in, as the `access_key.login` entry names it. */
type Proven = { principal: string; issuer?: string };

/** A refused login: the error the caller gets and the reason the audit entry records. */
class Refusal extends Error {
  readonly reason: string;
  readonly error: ApiError;

  constructor(reason: string, error: ApiError) {
    super(error.message);
    this.reason = reason;
    this.error = error;
  }
}

const refused = (reason: string, message: string) => new Refusal(reason, new AuthRequiredError(message));

/** The clock minute a login at `now` counts in, and the bucket of its source address. */
export function loginWindow(now: number, sourceIp: string | undefined): LoginWindow {
  return { minute: Math.floor(now / 60_000), source: sourceIp?.trim().toLowerCase() || NO_SOURCE_ADDRESS };
}

/** Whole seconds to the end of the clock minute: when a spent budget is whole again. */
const untilNextMinute = (now: number) => 60 - (Math.floor(now / 1000) % 60);

const loginsSpent = (now: number) =>
  new RateLimitedError(`login: at most ${LOGINS_PER_MINUTE} logins per access key per minute`, untilNextMinute(now));

const refusalsSpent = (now: number) =>
  new RateLimitedError(
    `login: at most ${REFUSED_LOGINS_PER_MINUTE} refused logins per access key and source address per minute`,
    untilNextMinute(now),
  );

/**
 * The login budgets, before any check: RATE_LIMITED when the key's successful logins of the minute are spent, or its
 * refused ones from this address. Another address's refusals are another counter, so they never refuse this login.
 */
export function checkLoginBudgets(spent: LoginSpent, now: number): void {
  if (spent.logins >= LOGINS_PER_MINUTE) throw loginsSpent(now);
  if (spent.refusals >= REFUSED_LOGINS_PER_MINUTE) throw refusalsSpent(now);
}

export function makeLoginService(deps: LoginDeps) {
  const { store, clock } = deps;

  /**
   * The state of the key itself: unrevoked, unexpired, of the login's method, its workspace allowlisted, and the
   * caller within its networks (as every use of its tokens must be).
   */
  function checkKey(target: LoginTarget, method: LoginBody['method'], now: number, sourceIp: string | undefined): void {
    const { record, workspace } = target;
    if (record.revokedAt) throw refused('revoked', 'login: the access key has been revoked');
    if (record.expiresAt && Date.parse(record.expiresAt) <= now) throw refused('expired', 'login: the access key has expired');
    if (record.auth.type === 'token') throw refused('method', 'login: this access key has a token of its own and does not log in');
    if (record.auth.type === 'aws_sigv4')
      throw refused('method', 'login: this access key signs its requests with its own AWS key pair and does not log in');
    if (record.auth.type !== method) throw refused('method', `login: this access key logs in with ${record.auth.type}, not ${method}`);
    if (!workspace?.allowlisted) throw new Refusal('workspace_not_allowlisted', new WorkspaceNotAllowlistedError());
    if (!fromAllowedAddress(sourceIp, record.allowedCidrs)) {
      throw new Refusal('source_address', new ForbiddenError('login: this access key may not be used from this address (allowedCidrs)'));
    }
  }

  /** The identity the body proves for the key, or a Refusal naming the failed check. */
  async function prove(target: LoginTarget, body: LoginBody, now: number): Promise<Proven> {
    const auth = target.record.auth;
    if (body.method === 'aws_iam' && auth.type === 'aws_iam') {
      const { stsEndpoint, serverId } = deps.iam;
      if (!stsEndpoint || !serverId) {
        throw new Refusal(
          'not_configured',
          new ServiceUnavailableError('login: AWS IAM login is not configured here (AWS_STS_ENDPOINT, IAM_SERVER_ID)'),
        );
      }
      let headers: Record<string, string>;
      try {
        headers = checkSignedRequest(body.signedRequest, { stsEndpoint, serverId, now });
      } catch (error) {
        if (error instanceof IamLoginRefused) throw refused(error.reason, `login: ${error.message}`);
        throw error;
      }
      const sts = await deps.replayToSts(stsEndpoint, headers, body.signedRequest.body);
      if (!sts.ok)
        throw new Refusal(sts.reason, sts.unavailable ? new ServiceUnavailableError(sts.message) : new AuthRequiredError(sts.message));
      const principal = principalArnOf(sts.callerArn);
      if (!principalMatches(principal, auth.principalArns)) {
        throw refused('principal', "login: the caller's IAM role or user matches none of the access key's principalArns");
      }
      return { principal };
    }
    if (body.method === 'oidc' && auth.type === 'oidc') {
      const verdict = await deps.verifyOidc(auth, body.jwt);
      if (!verdict.ok)
        throw new Refusal(
          verdict.reason,
          verdict.unavailable ? new ServiceUnavailableError(verdict.message) : new AuthRequiredError(verdict.message),
        );
      return { principal: verdict.subject, issuer: verdict.issuer };
    }
    throw refused('method', 'login: the method does not match the access key');
  }

  /**
   * Issues the token against the key as last read, counting the login in the same transaction; reads the key again
   * when it changed meanwhile. RATE_LIMITED when concurrent logins spent the minute's budget after it was read.
   */
  async function issue(
    first: LoginTarget,
    body: LoginBody,
    proven: Proven,
    now: number,
    origin: { sourceIp?: string | undefined; window: LoginWindow },
  ) {
    const { sourceIp, window } = origin;
    const macs = await deps.macs();
    let target: LoginTarget | undefined = first;
    for (let attempt = 0; attempt < ISSUE_ATTEMPTS && target; attempt++) {
      if (attempt > 0) checkKey(target, body.method, now, sourceIp);
      const { record, workspaceId } = target;
      const token = issueToken(macs, 'machine', workspaceId);
      const life = now + record.tokenTtlSeconds! * 1000;
      const expiresAt = iso(record.expiresAt ? Math.min(life, Date.parse(record.expiresAt)) : life);
      const audit = auditEntry(
        keyActor(target),
        'access_key.login',
        record.id,
        { accessKeyId: record.id, method: body.method, ...proven },
        now,
      );
      const issued = await store.issueLoginToken({
        workspaceId,
        record,
        revision: target.revision,
        tokenHash: hashToken(token),
        token: {
          kind: 'machine',
          workspaceId,
          credentialId: record.id,
          actorSub: record.identityId,
          expiresAt,
          revokedAt: null,
          lastUsedAt: null,
          ...tokenScope(record),
          keyRevision: target.revision ?? 0,
          // The form answered, so the token works that way only (token-use.ts).
          format: body.format ?? 'token',
        },
        audit,
        createdAt: iso(now),
        window,
        maxLogins: LOGINS_PER_MINUTE,
      });
      if (issued === 'issued') {
        const answer = { expiresAt, accessKeyId: record.id, identityId: record.identityId };
        if (body.format !== 'aws') return { token, ...answer };
        // The same token as temporary AWS credentials: the session token, and the key pair derived from it.
        const awsCredentials = { ...awsSessionCredentials(macs, token), sessionToken: token, expiration: expiresAt };
        return { token: null, ...answer, awsCredentials };
      }
      if (issued === 'limited') throw loginsSpent(now);
      // Another transaction on the key's record got in the way (a fleet logging in at once, its lastUsedAt): a short,
      // random wait, then the same key again; a revoke or a PATCH: the key read again.
      if (issued === 'busy') await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
      else target = await store.findLoginTarget(record.id);
    }
    throw new ServiceUnavailableError('login: the access key kept changing; retry shortly');
  }

  /**
   * Counts a refusal against the key's budget for the caller's address and audits it (when the workspace has an
   * account to write the entry under), then throws its error; past the budget, RATE_LIMITED, not audited.
   */
  async function refuse(target: LoginTarget, window: LoginWindow, body: LoginBody, refusal: Refusal, now: number): Promise<never> {
    const metadata = { method: body.method, reason: refusal.reason };
    const audit = target.workspace?.accountId
      ? auditEntry(keyActor(target), 'access_key.login_denied', target.record.id, metadata, now)
      : undefined;
    const counted = await store.recordLoginRefusal(target.workspaceId, target.record.id, window, REFUSED_LOGINS_PER_MINUTE, audit);
    throw counted ? refusal.error : refusalsSpent(now);
  }

  return {
    /**
     * Logs a workload in. An unknown key is AUTH_REQUIRED with nothing written. For an existing key the key and both
     * of its budgets are read in one request and a spent budget is RATE_LIMITED before any check, not audited; a
     * refusal is counted for the caller's address and audited as `access_key.login_denied`; a success is counted in
     * the transaction that issues its token.
     */
    async login(body: LoginBody, origin: { sourceIp?: string | undefined }) {
      const unknown = () => new AuthRequiredError('login: the access key does not exist or cannot log in');
      const workspaceId = await store.workspaceOfAccessKey(body.accessKeyId);
      if (workspaceId === undefined) throw unknown();
      const now = clock.now();
      const window = loginWindow(now, origin.sourceIp);
      const { target, spent } = await store.readLoginAttempt(workspaceId, body.accessKeyId, window);
      if (!target) throw unknown();
      checkLoginBudgets(spent, now);
      try {
        checkKey(target, body.method, now, origin.sourceIp);
        const proven = await prove(target, body, now);
        return await issue(target, body, proven, now, { sourceIp: origin.sourceIp, window });
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        return refuse(target, window, body, error, now);
      }
    },
  };
}

/** The key's machine identity as the actor of its login entries. */
function keyActor(target: LoginTarget) {
  return { actorSub: target.record.identityId, kind: 'machine' as const, accountId: target.workspace?.accountId ?? '' };
}

export type LoginService = ReturnType<typeof makeLoginService>;
