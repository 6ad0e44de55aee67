/** An answer of the API that is not a success: its HTTP status, the API's code and message, and the request id. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  /** `error.details` where the API gives them (a reveal's unresolvable references, a merge's stale keys). */
  readonly details: readonly Record<string, unknown>[] | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    requestId?: string,
    options?: { cause?: unknown; details?: readonly Record<string, unknown>[] },
  ) {
    super(`${code}: ${message}`, options);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.details = options?.details;
  }
}

/** A webhook request that must not be trusted: missing or bad signature, stale timestamp, or a body that is not raw. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** The data of a success, or an ApiError carrying the API's status, code, message and request id. */
export function unwrap<T>(result: { data?: { data: T }; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data.data;
  const envelope = result.error as
    | { error?: { code?: string; message?: string; details?: Record<string, unknown>[] }; meta?: { requestId?: string }; message?: string }
    | undefined;
  const code = envelope?.error?.code ?? (result.response.status === 404 ? 'NOT_FOUND' : 'HTTP_ERROR');
  throw new ApiError(
    result.response.status,
    code,
    envelope?.error?.message ?? envelope?.message ?? result.response.statusText,
    envelope?.meta?.requestId ?? result.response.headers.get('x-request-id') ?? undefined,
    Array.isArray(envelope?.error?.details) ? { details: envelope.error.details } : undefined,
  );
}
