/** An answer of the API that is not a success: its HTTP status, the API's code and message, and the request id. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;

  constructor(status: number, code: string, message: string, requestId?: string) {
    super(`${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

/** A webhook request that must not be trusted: missing or bad signature, stale timestamp, or a body that is not raw. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
