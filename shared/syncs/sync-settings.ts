/**
 * The syncs' own settings (decisions.md v1.4, "Syncs"), read from the environment only by the functions that queue
 * or push syncs, so no other function's cold start reads or carries them.
 */
export interface SyncSettings {
  /** The sync queue (set by the CDK stack and the local stack). */
  queueUrl: string | undefined;
  /** The role ARN patterns a sync may assume (CDK context `syncRoleArns`, comma-separated; `${workspaceId}` allowed). */
  roleArns: string[];
  /** Whether a sync without `roleArn` may write into the stack's own account (CDK context `syncOwnAccount`). */
  ownAccount: boolean;
  /** Local stack and tests: one endpoint for Parameter Store, Secrets Manager and STS, and the keys it signs with. */
  awsEndpoint: { url: string; accessKeyId: string; secretAccessKey: string } | undefined;
}

/** Reads the settings; a malformed one fails at cold start, naming it. */
export function loadSyncSettings(env: NodeJS.ProcessEnv = process.env): SyncSettings {
  const endpoint = env.SYNC_AWS_ENDPOINT?.trim();
  if (endpoint && !URL.canParse(endpoint)) throw new Error('Invalid configuration: SYNC_AWS_ENDPOINT must be a URL');
  const own = env.SYNC_OWN_ACCOUNT?.trim();
  if (own && own !== 'true' && own !== 'false') throw new Error('Invalid configuration: SYNC_OWN_ACCOUNT must be true or false');
  return {
    queueUrl: env.SYNC_QUEUE_URL?.trim() || undefined,
    roleArns: (env.SYNC_ROLE_ARNS ?? '')
      .split(',')
      .map((pattern) => pattern.trim())
      .filter(Boolean),
    // Locally a sync without roleArn writes to the local endpoint, as decisions.md says.
    ownAccount: own === 'true' || (own === undefined && Boolean(endpoint)),
    awsEndpoint: endpoint
      ? {
          url: endpoint,
          accessKeyId: env.SYNC_AWS_ACCESS_KEY_ID?.trim() || 'test',
          secretAccessKey: env.SYNC_AWS_SECRET_ACCESS_KEY?.trim() || 'test',
        }
      : undefined,
  };
}
