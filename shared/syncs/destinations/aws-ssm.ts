import { DeleteParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { AwsSsmDestination } from '../sync-records.ts';
import { awsClient } from './aws-credentials.ts';
import { awsErrorCode, awsFailure } from './aws-failure.ts';
import type { DestinationContext, PushedValue, SyncDestination } from './destination.ts';

/**
 * AWS Systems Manager Parameter Store (decisions.md v1.4, "Syncs"): each key is the SecureString parameter
 * `<pathPrefix><KEY>`, overwritten, under `kmsKeyId` when given (else AWS's `alias/aws/ssm`). PutParameter's
 * default throughput is low (a few calls a second per account and region), so values go one at a time, and
 * throttling is retried by the SDK's standard retry (aws-credentials.ts).
 */

/** The parameter name of a key. */
export const parameterName = (destination: Pick<AwsSsmDestination, 'pathPrefix'>, key: string) => `${destination.pathPrefix}${key}`;

/** Makes the Parameter Store destination of a sync. */
export function makeAwsSsmDestination(destination: AwsSsmDestination, context: DestinationContext): SyncDestination {
  const ssm = awsClient('ssm', (config) => new SSMClient(config), destination, context);
  return {
    wholeEnvironment: false,
    async put(values: readonly PushedValue[]) {
      for (const { key, value } of values) {
        const Name = parameterName(destination, key);
        const input = {
          Name,
          Value: value,
          Type: 'SecureString' as const,
          Overwrite: true,
          ...(destination.kmsKeyId !== undefined && { KeyId: destination.kmsKeyId }),
        };
        await ssm.send(new PutParameterCommand(input)).catch((error: unknown) => {
          throw awsFailure(`SSM PutParameter ${Name}`, error, [value]);
        });
      }
    },
    async remove(keys: readonly string[]) {
      for (const key of keys) {
        const Name = parameterName(destination, key);
        await ssm.send(new DeleteParameterCommand({ Name })).catch((error: unknown) => {
          // Already gone is what remove wants.
          if (awsErrorCode(error) !== 'ParameterNotFound') throw awsFailure(`SSM DeleteParameter ${Name}`, error);
        });
      }
    },
  };
}
