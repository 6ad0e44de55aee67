import {
  ListSecretsCommand,
  type ListSecretsCommandInput,
  type SecretListEntry,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import { call, type newWorkspace } from '../../support/api.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

/** The AWS SDK for JavaScript, pointed at the local stack as decisions.md says: the endpoint is the base URL. */
export function client(credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }, region = 'us-east-1') {
  const { accessKeyId, secretAccessKey, sessionToken } = credentials;
  return new SecretsManagerClient({
    endpoint: inject('stack').baseUrl,
    region,
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken !== undefined && { sessionToken }) },
    maxAttempts: 1,
  });
}

/** An access key with auth aws_sigv4, made through the REST API; answers its key pair and id. */
export async function awsKey(ws: Ws, body: Record<string, unknown> = {}) {
  const created = await call('POST', '/api/v1/access-keys', {
    token: ws.apiKey,
    body: { name: 'eso', auth: { type: 'aws_sigv4' }, ...body },
  });
  expect(created.status).toBe(201);
  const key = created.body.data;
  return {
    id: key.id as string,
    identityId: key.identityId as string,
    accessKeyId: key.auth.awsAccessKeyId as string,
    secretAccessKey: key.awsSecretAccessKey as string,
  };
}

/** A ListSecrets followed by its NextToken to the end: the names of each page, and every entry in order. */
export async function listPages(sm: SecretsManagerClient, input: ListSecretsCommandInput = {}) {
  const pages: string[][] = [];
  const entries: SecretListEntry[] = [];
  let token: string | undefined;
  do {
    const page = await sm.send(new ListSecretsCommand({ ...input, ...(token !== undefined && { NextToken: token }) }));
    pages.push((page.SecretList ?? []).map((entry) => entry.Name!));
    entries.push(...(page.SecretList ?? []));
    token = page.NextToken;
    expect(pages.length).toBeLessThan(50);
  } while (token !== undefined);
  return { pages, names: pages.flat(), entries };
}

/**
 * The whole environment of an AWS CLI or boto3 process signing with `key`: nothing of this machine's own AWS setup
 * (no config or credentials file, no instance metadata, no pager), region us-east-1, a home of its own.
 */
export function awsClientEnvironment(key: { accessKeyId: string; secretAccessKey: string }): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'aws-home-'));
  return {
    PATH: process.env.PATH,
    HOME: home,
    AWS_ACCESS_KEY_ID: key.accessKeyId,
    AWS_SECRET_ACCESS_KEY: key.secretAccessKey,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_CONFIG_FILE: join(home, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
  };
}
