/**
 * Every operation but GetSecretValue: their code is a chunk of its own (more-operations.ts) that a cold start does
 * not read, imported on the first call of one of them and built once per container.
 */
export const LATER_OPERATIONS = [
  'DescribeSecret',
  'ListSecretVersionIds',
  'ListSecrets',
  'BatchGetSecretValue',
  'CreateSecret',
  'PutSecretValue',
  'UpdateSecret',
  'DeleteSecret',
  'RestoreSecret',
  'TagResource',
  'UntagResource',
  'GetRandomPassword',
  'UpdateSecretVersionStage',
  'RotateSecret',
  'CancelRotateSecret',
  'GetResourcePolicy',
  'DeleteResourcePolicy',
  'PutResourcePolicy',
  'ValidateResourcePolicy',
] as const;
