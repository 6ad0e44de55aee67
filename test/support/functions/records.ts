import { writeFileSync } from 'node:fs';

/**
 * A rotation function exported under another name: it writes what it was given (its environment, the event, what the
 * context says) to the file OUT_FILE names.
 */
export async function rotate(
  event: unknown,
  context: { functionName: string; invokedFunctionArn: string; getRemainingTimeInMillis(): number },
): Promise<void> {
  const seen = {
    env: { ...process.env },
    event,
    functionName: context.functionName,
    arn: context.invokedFunctionArn,
    remainingMs: context.getRemainingTimeInMillis(),
  };
  writeFileSync(process.env.OUT_FILE!, JSON.stringify(seen));
}
