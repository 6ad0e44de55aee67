import { readFile } from 'node:fs/promises';
import { globMatcher } from '../platform/glob.ts';
import { rotationFunctionPatterns, WORKSPACE_PLACEHOLDER } from '../platform/rotation-function-arns.ts';

/**
 * Which rotation functions the service may invoke for a workspace (decisions.md v1.3, "Where functions run", and v1.4
 * Hardening): the one decision, asked when a rotation is configured (another ARN is AccessDeniedException) and again
 * by the runner before each invocation (rotation-steps.ts's `rotationFunctionAllowed`). On AWS the patterns of the
 * stack's context `rotationFunctionArns` (ROTATION_FUNCTION_ARNS), where `${workspaceId}` stands for the caller's
 * workspace; on the local stack the stand-ins registered with `npm run admin -- function add`
 * (LOCAL_ROTATION_FUNCTIONS_FILE, read at each question, so a function added while the stack runs counts at once).
 */

/** Whether the service may invoke the function `arn` for workspace `workspaceId`. */
export type RotationFunctionAllowed = (arn: string, workspaceId: string) => Promise<boolean>;

const LOCAL_FUNCTION_ARN = /^arn:aws:lambda:us-east-1:000000000000:function:([A-Za-z0-9_-]{1,64})$/;

/**
 * What a workspace id may be to stand in a pattern: letters, digits, `_` and `-` (ids are `ws_` + ULID). The glob
 * has no escape, so an id with `*`, `?`, `/` or `:` would widen the pattern: such an id matches no templated pattern.
 */
const PATTERN_SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The patterns as one matcher over (ARN, workspace id): those without `${workspaceId}` compiled once; those with it
 * compiled for each question with the placeholder replaced by the workspace id (a handful of short patterns: cheap).
 */
export function rotationFunctionMatcher(patterns: readonly string[]): (arn: string, workspaceId: string) => boolean {
  const fixed = globMatcher(patterns.filter((pattern) => !pattern.includes(WORKSPACE_PLACEHOLDER)));
  const templated = patterns.filter((pattern) => pattern.includes(WORKSPACE_PLACEHOLDER));
  return (arn, workspaceId) => {
    if (fixed(arn)) return true;
    if (templated.length === 0 || !PATTERN_SAFE_ID.test(workspaceId)) return false;
    return globMatcher(templated.map((pattern) => pattern.replaceAll(WORKSPACE_PLACEHOLDER, workspaceId)))(arn);
  };
}

/** The decision over this environment: the local stand-ins when LOCAL_ROTATION_FUNCTIONS_FILE is set, else the patterns. */
export function rotationFunctionsAllowed(env: NodeJS.ProcessEnv = process.env): RotationFunctionAllowed {
  const localFile = env.LOCAL_ROTATION_FUNCTIONS_FILE;
  if (localFile) {
    return async (arn) => {
      const name = LOCAL_FUNCTION_ARN.exec(arn)?.[1];
      if (!name) return false;
      const registered = await readFile(localFile, 'utf8').then(
        (text) => (JSON.parse(text) as { functions?: Record<string, unknown> }).functions ?? {},
        () => ({}),
      );
      return Object.hasOwn(registered, name);
    };
  }
  const matches = rotationFunctionMatcher(rotationFunctionPatterns(env));
  return async (arn, workspaceId) => matches(arn, workspaceId);
}
