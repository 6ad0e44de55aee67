import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashToken } from '../../shared/access/index.ts';
import type { WorkspaceStore } from '../../shared/workspaces/index.ts';

/**
 * The local stack's credentials for a shell (local use only): an AWS key pair of the bootstrap workspace for the AWS
 * Secrets Manager API (an access key with auth `aws_sigv4`, made through the API on first start, as a user would, and
 * kept in `LOCAL_DIR/aws-key.json`, mode 600), and `LOCAL_DIR/env` (mode 600), the `export` lines that set the API
 * URL, the bootstrap API key and the key pair: `source .local/env`, then `npx secrets …` and `aws --endpoint-url
 * "$SECRETS_API_URL" secretsmanager …` work. LocalStack hands out fixed credentials for the same reason.
 */

interface LocalAwsKey {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The saved key pair while its key exists and is not revoked; otherwise a new one, made with the bootstrap key. */
async function ensureLocalAwsKey(
  localDir: string,
  baseUrl: string,
  apiKey: string,
  store: Pick<WorkspaceStore, 'getToken'>,
): Promise<LocalAwsKey> {
  const file = join(localDir, 'aws-key.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as LocalAwsKey;
    const token = await store.getToken(hashToken(saved.accessKeyId));
    if (token?.awsSecret && !token.revokedAt) return saved;
  }
  const response = await fetch(`${baseUrl}/api/v1/access-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'local AWS key pair', auth: { type: 'aws_sigv4' } }),
  });
  const answer = (await response.json()) as { data?: { auth?: { awsAccessKeyId?: string }; awsSecretAccessKey?: string } };
  const accessKeyId = answer.data?.auth?.awsAccessKeyId;
  const secretAccessKey = answer.data?.awsSecretAccessKey;
  if (response.status !== 201 || !accessKeyId || !secretAccessKey)
    throw new Error(`the local AWS key pair could not be made (${response.status})`);
  const saved = { accessKeyId, secretAccessKey };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return saved;
}

/** Makes (or keeps) the local AWS key pair and writes `LOCAL_DIR/env`; answers the file's path. */
export async function writeLocalEnv(
  localDir: string,
  stack: { baseUrl: string; apiKey: string; region: string },
  store: Pick<WorkspaceStore, 'getToken'>,
): Promise<string> {
  const aws = await ensureLocalAwsKey(localDir, stack.baseUrl, stack.apiKey, store);
  const lines = [
    '# The local stack (npm start): source this file in a shell. Local use only; never commit it.',
    `export SECRETS_API_URL=${stack.baseUrl}`,
    `export SECRETS_TOKEN=${stack.apiKey}`,
    `export AWS_ACCESS_KEY_ID=${aws.accessKeyId}`,
    `export AWS_SECRET_ACCESS_KEY=${aws.secretAccessKey}`,
    'unset AWS_SESSION_TOKEN AWS_PROFILE',
    `export AWS_DEFAULT_REGION=${stack.region}`,
    `export AWS_REGION=${stack.region}`,
  ];
  const file = join(localDir, 'env');
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}
