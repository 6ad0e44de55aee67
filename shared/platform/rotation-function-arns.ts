/**
 * The rotation functions the stack may invoke, as the CDK stack passes its context `rotationFunctionArns` to the
 * functions that ask (ROTATION_FUNCTION_ARNS, comma-separated ARN patterns; the IAM grant is limited to the same).
 * Read by the secrets service when a rotation is configured and by the runner before it invokes.
 */

const PATTERN = /^arn:\S{1,2044}$/;

/** The patterns of ROTATION_FUNCTION_ARNS (unset or empty: none allowed); a malformed one throws. */
export function rotationFunctionPatterns(env: NodeJS.ProcessEnv = process.env): string[] {
  const patterns = (env.ROTATION_FUNCTION_ARNS ?? '')
    .split(',')
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== '');
  const malformed = patterns.find((pattern) => !PATTERN.test(pattern));
  if (malformed !== undefined) throw new Error(`ROTATION_FUNCTION_ARNS: "${malformed.slice(0, 100)}" is not an ARN pattern`);
  return patterns;
}
