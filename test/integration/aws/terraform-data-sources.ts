import { type Filter, type FilterNameStringType, ListSecretsCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CURRENT, findSecretByID, findSecretPolicyByID, findSecretVersion, rfc3339, tagMap } from './terraform-provider.ts';

/**
 * The data sources of Terraform's `aws` provider for Secrets Manager, replayed call for call as terraform-provider.ts
 * replays its resources: `aws_secretsmanager_secret` (secret_data_source.go), `aws_secretsmanager_secret_version`
 * (secret_version_data_source.go) and `aws_secretsmanager_secrets` (secrets_data_source.go). What each returns is the
 * data source's attributes.
 */

type Sm = SecretsManagerClient;

/** `data "aws_secretsmanager_secret"`: by ARN or name; its dates are formatted without a nil check, its policy read. */
export async function secretDataSource(sm: Sm, by: { arn: string } | { name: string }) {
  const secretId = 'arn' in by ? by.arn : by.name;
  const secret = await findSecretByID(sm, secretId);
  if (!secret) throw new Error(`reading Secrets Manager Secret (${secretId}): couldn't find resource`);
  const policy = await findSecretPolicyByID(sm, secret.ARN!);
  if (!policy) throw new Error(`reading Secrets Manager Secret (${secret.ARN}) policy: couldn't find resource`);
  return {
    arn: secret.ARN!,
    created_date: rfc3339(secret.CreatedDate),
    description: secret.Description ?? '',
    kms_key_id: secret.KmsKeyId ?? '',
    last_changed_date: rfc3339(secret.LastChangedDate),
    name: secret.Name!,
    policy: policy.ResourcePolicy ?? '',
    tags: tagMap(secret.Tags),
  };
}

/** `data "aws_secretsmanager_secret_version"`: a `version_id`, else a `version_stage` (AWSCURRENT by default) is sent. */
export async function secretVersionDataSource(sm: Sm, config: { secret_id: string; version_id?: string; version_stage?: string }) {
  const version = config.version_id ?? config.version_stage ?? CURRENT;
  const output = await findSecretVersion(sm, {
    SecretId: config.secret_id,
    ...(config.version_id ? { VersionId: config.version_id } : { VersionStage: version }),
  });
  if (!output) throw new Error(`reading Secrets Manager Secret Version (${config.secret_id}|${version}): couldn't find resource`);
  return {
    id: `${config.secret_id}|${version}`,
    arn: output.ARN!,
    created_date: rfc3339(output.CreatedDate),
    secret_binary: output.SecretBinary ? Buffer.from(output.SecretBinary).toString('latin1') : '',
    secret_string: output.SecretString ?? '',
    version_id: output.VersionId!,
    version_stages: [...(output.VersionStages ?? [])].sort(),
  };
}

/** `data "aws_secretsmanager_secrets"`: its `filter` blocks as ListSecrets' Filters, every page read (no MaxResults). */
export async function secretsDataSource(sm: Sm, filters: { name: string; values: string[] }[]) {
  const input = { Filters: filters.map((filter): Filter => ({ Key: filter.name as FilterNameStringType, Values: filter.values })) };
  const arns: string[] = [];
  const names: string[] = [];
  let token: string | undefined;
  do {
    const page = await sm.send(new ListSecretsCommand({ ...input, ...(token && { NextToken: token }) }));
    for (const entry of page.SecretList ?? []) {
      arns.push(entry.ARN!);
      names.push(entry.Name!);
    }
    token = page.NextToken;
  } while (token);
  return { arns: arns.sort(), names: names.sort() };
}
