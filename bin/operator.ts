import { userInfo } from 'node:os';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';

/**
 * Who runs an operator action, as the workspace's audit log names it: the OS user against the local stack, the AWS
 * caller identity (an IAM ARN, as CloudTrail records it too) against a deployed table.
 */
export function localOperator(): string {
  return `os-user:${userInfo().username}`;
}

/** The AWS caller identity's ARN; fails (exit 1) when no credentials are configured, before anything is changed. */
export async function awsOperator(region: string | undefined): Promise<string> {
  const sts = new STSClient(region ? { region } : {});
  try {
    const identity = await sts.send(new GetCallerIdentityCommand({}));
    return identity.Arn ?? `account:${identity.Account}`;
  } finally {
    sts.destroy();
  }
}
