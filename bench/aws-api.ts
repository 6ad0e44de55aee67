import { BatchGetSecretValueCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { request, type Api } from './load.ts';

/**
 * The AWS Secrets Manager API in the bench (issue 36): an `aws_sigv4` key of the bench workspace and the AWS SDK for
 * JavaScript pointed at the local stack, as a customer's code would call it. `GetSecretValue` reveals the same
 * secret as the REST reveal by path; `BatchGetSecretValue` the first 20 secrets of the environment the bulk reveal
 * loads (20 is its most a call), so both compare per secret with the REST figures.
 */

/** Secrets a BatchGetSecretValue asks for: AWS's most a call. */
export const AWS_BATCH_SECRETS = 20;

export async function awsApiCalls(api: Api, setup: { path: string; loadNames: readonly string[] }) {
  const created = await request(api, 'POST', '/api/v1/access-keys', { name: 'bench-aws', auth: { type: 'aws_sigv4' } }, 201);
  const client = new SecretsManagerClient({
    endpoint: api.baseUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: created.data.auth.awsAccessKeyId, secretAccessKey: created.data.awsSecretAccessKey },
    maxAttempts: 1,
  });
  const batch = setup.loadNames.slice(0, AWS_BATCH_SECRETS);
  return {
    getSecretValue: async () => {
      const answer = await client.send(new GetSecretValueCommand({ SecretId: setup.path }));
      if (answer.SecretString === undefined) throw new Error('GetSecretValue answered no value');
      return answer;
    },
    batchGetSecretValue: async () => {
      const answer = await client.send(new BatchGetSecretValueCommand({ SecretIdList: batch }));
      if (answer.SecretValues?.length !== batch.length) throw new Error(`BatchGetSecretValue answered ${answer.Errors?.length} errors`);
      return answer;
    },
  };
}
