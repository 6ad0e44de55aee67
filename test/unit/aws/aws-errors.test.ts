import { describe, expect, it } from 'vitest';
import { SignatureMismatchError, UnrecognizedKeyError } from '../../../shared/access/sigv4-credentials.ts';
import { AwsError, toAwsError } from '../../../shared/aws/aws-errors.ts';
import {
  AuthRequiredError,
  ConflictError,
  ForbiddenError,
  LimitExceededError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  ValidationError,
  WorkspaceNotAllowlistedError,
} from '../../../shared/platform/errors.ts';
import { UnresolvedReferencesError } from '../../../shared/references/index.ts';

describe("the AWS API's error table", () => {
  it.each([
    [new UnrecognizedKeyError('x'), 'UnrecognizedClientException', 400],
    [new SignatureMismatchError('x'), 'InvalidSignatureException', 400],
    [new AuthRequiredError('x'), 'UnrecognizedClientException', 400],
    [new ForbiddenError('x'), 'AccessDeniedException', 400],
    [new WorkspaceNotAllowlistedError(), 'AccessDeniedException', 400],
    [new NotFoundError('x'), 'ResourceNotFoundException', 400],
    [new ValidationError('SecretId: too long'), 'InvalidParameterException', 400],
    [new ConflictError('x'), 'InvalidRequestException', 400],
    [new LimitExceededError('x'), 'LimitExceededException', 400],
    [new RateLimitedError('slow down', 7), 'ThrottlingException', 400],
    [new ServiceUnavailableError('x'), 'InternalServiceError', 500],
  ])('%s → %s', (error, type, status) => {
    expect(toAwsError(error)).toMatchObject({ type, status });
  });

  it('keeps the message of the service, and says nothing of an unexpected error', () => {
    expect(toAwsError(new ValidationError('SecretId: must be at most 2048 characters')).message).toBe(
      'SecretId: must be at most 2048 characters',
    );
    const hidden = toAwsError(new Error('internal detail s3cr3t'));
    expect(hidden).toMatchObject({ type: 'InternalServiceError', status: 500, message: 'An error occurred on the server side.' });
    const own = new AwsError('UnknownOperationException', 'x');
    expect(toAwsError(own)).toBe(own);
  });

  it('names each unresolvable reference and why in an InvalidRequestException (AWS errors have no details)', () => {
    const error = new UnresolvedReferencesError([
      { reference: 'prod.DB_HOST', reason: 'unresolvable' },
      { reference: 'A', reason: 'cycle' },
    ]);
    expect(toAwsError(error)).toMatchObject({
      type: 'InvalidRequestException',
      status: 400,
      message: "The secret's value references what cannot be resolved: ${prod.DB_HOST} (unresolvable), ${A} (cycle).",
    });
  });
});
