/**
 * The rotation functions the stack may invoke, as the CDK stack passes its context `rotationFunctionArns` to the
 * functions that ask (ROTATION_FUNCTION_ARNS, comma-separated ARN patterns; the IAM grant is limited to the same, with
 * `${workspaceId}` widened to `*`), and the ARN a rotation may name. Read by shared/rotation/rotation-functions.ts,
 * which decides for both the configuration and the runner, and by the stack's grant (lib/secret-rotation.ts): in
 * platform/ because lib/ imports nothing else of shared/.
 */

/** Stands for the caller's workspace id in a pattern (decisions.md v1.4, Hardening). */
export const WORKSPACE_PLACEHOLDER = '${workspaceId}';

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

/**
 * A pattern as IAM can hold it: IAM cannot know the caller's workspace, so `${workspaceId}` becomes `*` (and must not
 * reach IAM as is: `${…}` is IAM's policy-variable syntax).
 */
export const iamPatternOf = (pattern: string) => pattern.replaceAll(WORKSPACE_PLACEHOLDER, '*');

/** A Lambda function's ARN (with an optional version or alias), as RotationLambdaARN and REST's `function` take it. */
export const LAMBDA_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9_$-]{1,128})?$/;
