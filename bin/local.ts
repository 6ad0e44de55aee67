import { startLocalStack } from './local/stack.ts';

/**
 * `npm start`: the whole service on this machine. PORT (default 3000) and LOCAL_DIR (default .local) are read
 * from the environment; Ctrl-C stops every child process.
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const localDir = process.env.LOCAL_DIR ?? '.local';
  const dynamoPort = process.env.DYNAMODB_PORT ? Number(process.env.DYNAMODB_PORT) : undefined;
  // The worker's CloudWatch metrics (EMF lines) are noise on a terminal; POWERTOOLS_METRICS_DISABLED=false shows them.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const stack = await startLocalStack({ port, localDir, ...(dynamoPort ? { dynamoPort } : {}) });
  process.stdout.write(
    [
      '',
      `Secrets service is running at ${stack.baseUrl} (routes under ${stack.baseUrl}/api/v1)`,
      `Web console: ${stack.baseUrl}/console/ (sign in with the API key below)`,
      `Bootstrap workspace: ${stack.workspaceId} (allowlisted)`,
      `API key: ${stack.apiKey}`,
      `DynamoDB Local: ${stack.dynamodbEndpoint} (table ${stack.tableName}); details in ${localDir}/stack.json`,
      `A shell's settings (the API URL, the API key, an AWS key pair for the AWS API): source ${localDir}/env`,
      '',
      `Try: curl -s -H "Authorization: Bearer ${stack.apiKey}" ${stack.baseUrl}/api/v1/projects`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`The local stack could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
