import { ExpiredSessionError, SignatureMismatchError, UnrecognizedKeyError } from '../access/index.ts';
import { ApiError } from '../platform/errors.ts';
import { UnresolvedReferencesError } from '../references/index.ts';
import { InRecoveryWindowError, SecretExistsError, VersionIdExistsError } from '../secrets/index.ts';

/**
 * The one table from the service's errors to AWS's error types and statuses (decisions.md, "The AWS Secrets Manager
 * API"; AWS's Common Errors and each operation's Errors): the services throw what they throw for REST, and only
 * this file says what an AWS client sees. As MinIO's `cmd/api-errors.go` does for S3.
 */

/** An error in AWS's form: its `__type`, its HTTP status and a message (never a value, a token or a signature). */
export class AwsError extends Error {
  readonly type: string;
  readonly status: number;

  constructor(type: string, message: string, status = 400) {
    super(message);
    this.name = 'AwsError';
    this.type = type;
    this.status = status;
  }
}

/** The AWS type of each of the service's error codes (an ApiError's `code`). */
const BY_CODE: Readonly<Record<string, { type: string; status: number }>> = {
  AUTH_REQUIRED: { type: 'UnrecognizedClientException', status: 400 },
  FORBIDDEN: { type: 'AccessDeniedException', status: 400 },
  // Its message names the environment's review policy (shared/secrets/review-gate.ts).
  REVIEW_REQUIRED: { type: 'AccessDeniedException', status: 400 },
  WORKSPACE_NOT_ALLOWLISTED: { type: 'AccessDeniedException', status: 400 },
  NOT_FOUND: { type: 'ResourceNotFoundException', status: 400 },
  VALIDATION_ERROR: { type: 'InvalidParameterException', status: 400 },
  PAYLOAD_TOO_LARGE: { type: 'InvalidRequestException', status: 400 },
  CONFLICT: { type: 'InvalidRequestException', status: 400 },
  LIMIT_EXCEEDED: { type: 'LimitExceededException', status: 400 },
  RATE_LIMITED: { type: 'ThrottlingException', status: 400 },
  SERVICE_UNAVAILABLE: { type: 'InternalServiceError', status: 500 },
};

/** What an AWS client is told for anything thrown while handling its request. */
export function toAwsError(error: unknown): AwsError {
  if (error instanceof AwsError) return error;
  if (error instanceof SignatureMismatchError) return new AwsError('InvalidSignatureException', error.message);
  if (error instanceof UnrecognizedKeyError) return new AwsError('UnrecognizedClientException', error.message);
  if (error instanceof ExpiredSessionError) return new AwsError('ExpiredTokenException', error.message);
  // External Secrets Operator and Terraform match on these words (decisions.md v1.4, "Messages clients match on").
  if (error instanceof InRecoveryWindowError)
    return new AwsError(
      'InvalidRequestException',
      "You can't create this secret because a secret with this name is already scheduled for deletion.",
    );
  if (error instanceof SecretExistsError) return new AwsError('ResourceExistsException', 'A secret with this name already exists.');
  // Its message names the version and whether the value was compared, never the value (secret-writer.ts).
  if (error instanceof VersionIdExistsError) return new AwsError('ResourceExistsException', error.message);
  if (error instanceof UnresolvedReferencesError) return new AwsError('InvalidRequestException', referencesMessage(error));
  if (error instanceof ApiError) {
    const mapped = BY_CODE[error.code];
    if (mapped) return new AwsError(mapped.type, error.message, mapped.status);
  }
  // Anything else is ours, and says nothing of itself (it is logged by name and stack frames only).
  return new AwsError('InternalServiceError', 'An error occurred on the server side.', 500);
}

/**
 * AWS's errors carry no details: the message names each reference and why (decisions.md v1.4, "Secret references"),
 * as the REST answer's `error.details` does, to the caller allowed to reveal the value that holds them.
 */
function referencesMessage(error: UnresolvedReferencesError): string {
  const problems = error.details.map(({ reference, reason }) => `\${${reference}} (${reason})`);
  return `The secret's value references what cannot be resolved: ${problems.join(', ')}.`;
}
