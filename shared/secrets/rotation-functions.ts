import { readFile } from 'node:fs/promises';
import { globMatcher } from '../access/index.ts';
import { rotationFunctionPatterns } from '../platform/rotation-function-arns.ts';

/**
 * Which rotation functions the service may invoke (decisions.md v1.3, "Where functions run"), asked when a rotation
 * is configured (another ARN is AccessDeniedException) and again by the runner before each invocation: on AWS the
 * patterns of the stack's context `rotationFunctionArns` (ROTATION_FUNCTION_ARNS); on the local stack the stand-ins
 * registered with `npm run admin -- function add` (LOCAL_ROTATION_FUNCTIONS_FILE, read at each question, so a function
 * added while the stack runs counts at once).
 */

const LOCAL_FUNCTION_ARN = /^arn:aws:lambda:us-east-1:000000000000:function:([A-Za-z0-9_-]{1,64})$/;

export function rotationFunctionsAllowed(env: NodeJS.ProcessEnv = process.env): (arn: string) => Promise<boolean> {
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
  const patterns = rotationFunctionPatterns(env);
  const matches = globMatcher(patterns);
  return async (arn) => patterns.length > 0 && matches(arn);
}
