/**
 * Every operation of the AWS API but GetSecretValue: what its function loads on the first call of one (the chunk that
 * functions/aws/more-operations.ts enters), kept out of index.ts, which its cold start reads.
 */
export { makeBatchGetSecretValue } from './batch-get.ts';
export { makeListSecrets } from './list-secrets.ts';
export { getRandomPassword } from './random-password.ts';
export { makeSecretLookup } from './secret-lookup.ts';
export { makeSecretOperations } from './secret-operations.ts';
export { makeSecretWrites } from './secret-writes.ts';
export { ownKeyNames } from './kms-key-id.ts';
export { makeResourcePolicyOperations } from './resource-policies.ts';
export { makeRotationOperations } from './rotation-operations.ts';
