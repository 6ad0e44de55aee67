import type { Config } from '../platform/config.ts';
import { AwsError } from './aws-errors.ts';

/**
 * The `KmsKeyId` of CreateSecret and UpdateSecret (decisions.md v1.4): every value is sealed under the stack's own
 * key, so a request may name that key (its ARN, its id, its alias or the alias's ARN) or AWS's default for Secrets
 * Manager, `alias/aws/secretsmanager`, which External Secrets Operator sends; any other key is refused, because
 * this service would not seal under it.
 */

/** AWS's own key for Secrets Manager, the default a client names when it means "the service's key". */
export const AWS_DEFAULT_KEY = 'alias/aws/secretsmanager';

/** Every name of the stack's key a request may give: the key's ARN and id, its alias and the alias's ARN. */
export function ownKeyNames(keyNames: Config['keyNames']): string[] {
  const names = [AWS_DEFAULT_KEY];
  const arn = keyNames.keyArn;
  const match = arn === undefined ? null : /^arn:([^:]+):kms:([^:]+):(\d{12}):key\/(.+)$/.exec(arn);
  if (arn !== undefined) names.push(arn);
  if (match) names.push(match[4]!);
  if (keyNames.alias !== undefined) {
    names.push(keyNames.alias);
    if (match) names.push(`arn:${match[1]}:kms:${match[2]}:${match[3]}:${keyNames.alias}`);
  }
  return names;
}

/** InvalidParameterException unless `kmsKeyId` (when given) names a key this service seals under. */
export function checkKmsKeyId(kmsKeyId: string | undefined, accepted: readonly string[]): void {
  if (kmsKeyId === undefined || accepted.includes(kmsKeyId)) return;
  throw new AwsError(
    'InvalidParameterException',
    `KmsKeyId: values are sealed under the service's own KMS key; name it or ${AWS_DEFAULT_KEY}, or leave KmsKeyId out.`,
  );
}
