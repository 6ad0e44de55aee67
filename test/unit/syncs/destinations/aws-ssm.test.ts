import { DeleteParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { makeAwsSsmDestination } from '../../../../shared/syncs/destinations/aws-ssm.ts';
import { destinationContext, refusal } from '../support.ts';

const context = destinationContext({ ownAccount: true });
const awsError = (name: string, message: string, status = 400) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

describe('the Parameter Store destination (aws-ssm.ts)', () => {
  const ssm = mockClient(SSMClient);
  afterEach(() => ssm.reset());

  it('puts SecureString parameters <pathPrefix><KEY>, overwritten, one at a time, under kmsKeyId when given', async () => {
    ssm.on(PutParameterCommand).resolves({ Version: 1 });
    const destination = makeAwsSsmDestination(
      { type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/app/prod/', kmsKeyId: 'alias/sync' },
      context,
    );
    expect(destination.wholeEnvironment).toBe(false);
    await destination.put([
      { key: 'DB_URL', value: 'postgres://x' },
      { key: 'nested/KEY', value: 'v' },
    ]);
    expect(ssm.commandCalls(PutParameterCommand).map((call) => call.args[0].input)).toEqual([
      { Name: '/app/prod/DB_URL', Value: 'postgres://x', Type: 'SecureString', Overwrite: true, KeyId: 'alias/sync' },
      { Name: '/app/prod/nested/KEY', Value: 'v', Type: 'SecureString', Overwrite: true, KeyId: 'alias/sync' },
    ]);
  });

  it('without kmsKeyId sends no KeyId (AWS then uses alias/aws/ssm)', async () => {
    ssm.on(PutParameterCommand).resolves({ Version: 1 });
    await makeAwsSsmDestination({ type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/p/' }, context).put([{ key: 'A', value: '1' }]);
    expect(ssm.commandCalls(PutParameterCommand)[0]!.args[0].input).not.toHaveProperty('KeyId');
  });

  it('deletes parameters; ParameterNotFound is no error, any other failure is', async () => {
    ssm.on(DeleteParameterCommand, { Name: '/p/GONE' }).rejects(awsError('ParameterNotFound', 'not found'));
    ssm.on(DeleteParameterCommand, { Name: '/p/LOCKED' }).rejects(awsError('AccessDeniedException', 'not allowed', 403));
    const destination = makeAwsSsmDestination({ type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/p/' }, context);
    await destination.remove(['GONE']);
    expect(await refusal(destination.remove(['LOCKED']))).toBe('SSM DeleteParameter /p/LOCKED: AccessDeniedException (403): not allowed');
  });

  it("a failure names the operation, AWS's code and status, and drops AWS's message when it quotes the value", async () => {
    ssm
      .on(PutParameterCommand)
      .rejectsOnce(awsError('ThrottlingException', 'Rate exceeded', 400))
      .rejectsOnce(awsError('ValidationException', "Value 'hunter2-secret' at 'value' failed to satisfy constraint"));
    const destination = makeAwsSsmDestination({ type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/p/' }, context);
    expect(await refusal(destination.put([{ key: 'A', value: 'hunter2-secret' }]))).toBe(
      'SSM PutParameter /p/A: ThrottlingException (400): Rate exceeded',
    );
    const quoted = await refusal(destination.put([{ key: 'A', value: 'hunter2-secret' }]));
    expect(quoted).toBe('SSM PutParameter /p/A: ValidationException (400)');
  });
});
