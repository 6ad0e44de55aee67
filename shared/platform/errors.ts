/** Every error a client may see: a stable code, an HTTP status and a message that never carries secret material. */
export class ApiError extends Error {
  readonly code: string = 'INTERNAL_ERROR';
  readonly status: number = 500;
  /** Extra response headers, for example `Retry-After`. */
  readonly headers: Record<string, string> = {};
  /**
   * `error.details` of the answer, where the contract gives one (a reveal's unresolvable references, a merge's stale
   * keys): objects of names and reasons, never a value.
   */
  readonly details?: readonly object[];
}

/**
 * The base of an error class with a fixed code and status: `class NotFoundError extends errorOf('NOT_FOUND', 404) {}`.
 * One definition of the two fields instead of one per class.
 */
function errorOf<Code extends string>(code: Code, status: number) {
  return class extends ApiError {
    override readonly code: Code = code;
    override readonly status: number = status;
  };
}

export class ValidationError extends /* @__PURE__ */ errorOf('VALIDATION_ERROR', 400) {}

export class AuthRequiredError extends /* @__PURE__ */ errorOf('AUTH_REQUIRED', 401) {
  constructor(message = 'A valid bearer token is required') {
    super(message);
  }
}

export class WorkspaceNotAllowlistedError extends /* @__PURE__ */ errorOf('WORKSPACE_NOT_ALLOWLISTED', 403) {
  constructor() {
    super('This workspace is not on the private-beta allowlist');
  }
}

export class ForbiddenError extends /* @__PURE__ */ errorOf('FORBIDDEN', 403) {}

export class NotFoundError extends /* @__PURE__ */ errorOf('NOT_FOUND', 404) {}

export class ConflictError extends /* @__PURE__ */ errorOf('CONFLICT', 409) {}

/**
 * A repeat of an Idempotency-Key while the first request with it still runs. `Retry-After` tells a client (the SDK
 * does) that this conflict, unlike a taken slug, passes: retried with the same key, it gets the first one's answer.
 */
export class IdempotencyKeyInUseError extends ConflictError {
  /** `retryAfterSeconds`: what is left of the first request's lease, when its answer or the key is to be had. */
  constructor(retryAfterSeconds: number) {
    super('Idempotency-Key: the first request with this key is still running; retry later');
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class LimitExceededError extends /* @__PURE__ */ errorOf('LIMIT_EXCEEDED', 409) {}

export class PayloadTooLargeError extends /* @__PURE__ */ errorOf('PAYLOAD_TOO_LARGE', 413) {}

/** A rate limit was hit; `retryAfterSeconds` goes into the `Retry-After` header. */
export class RateLimitedError extends /* @__PURE__ */ errorOf('RATE_LIMITED', 429) {
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

/** A dependency (DynamoDB, KMS, SQS) is throttling or down: safe to retry. */
export class ServiceUnavailableError extends /* @__PURE__ */ errorOf('SERVICE_UNAVAILABLE', 503) {
  constructor(message = 'A dependency is temporarily unavailable; retry shortly', retryAfterSeconds = 1) {
    super(message);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

/**
 * The request ran out of its Lambda's time and was answered early (middy's `timeoutEarlyResponse`). Its handler may
 * still be running and may yet commit: an Idempotency-Key it holds stays held (shared/platform/http/idempotency.ts).
 */
export class OutOfTimeError extends ServiceUnavailableError {
  constructor() {
    super('the request ran out of time; retry shortly');
  }
}

/** A delivery retry while the delivery is still pending. */
export class AlreadyQueuedError extends /* @__PURE__ */ errorOf('ALREADY_QUEUED', 409) {}

/** A delivery retry while its endpoint is off (paused or switched off). */
export class EndpointDisabledError extends /* @__PURE__ */ errorOf('ENDPOINT_DISABLED', 409) {}

/** 422: an Idempotency-Key sent again with a different request (decisions.md, Idempotency keys). */
export class IdempotencyKeyReusedError extends /* @__PURE__ */ errorOf('IDEMPOTENCY_KEY_REUSED', 422) {}

/**
 * 409: a write to an environment whose review policy asks for a change request (decisions.md v1.4, "Change
 * requests"), by a credential its `bypass` does not name. The message names the policy, never a value.
 */
export class ReviewRequiredError extends /* @__PURE__ */ errorOf('REVIEW_REQUIRED', 409) {}
