import { appendFileSync } from 'node:fs';
import {
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';

/**
 * AWS's generic rotation template (SecretsManagerRotationTemplate/lambda_function.py of
 * aws-samples/aws-secrets-manager-rotation-lambdas) in TypeScript, a stand-in rotation function for the integration
 * tests: it checks the staging labels as the template does, puts a random password as the AWSPENDING version in
 * createSecret, and moves AWSCURRENT to it in finishSecret; setSecret and testSecret have no resource to touch. It
 * calls the service's AWS API at SECRETS_MANAGER_ENDPOINT with the credentials of the standard environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
 *
 * Variables a test sets, each naming a step (or several, comma-separated):
 * - `FAIL_STEP`: that step throws `Error('<step> failed on purpose')` after the template's checks.
 * - `HANG_STEP`: that step never finishes (a timer keeps the process alive, so only a timeout ends it).
 * - `SKIP_STEP`: that step returns without doing its work (a finishSecret that leaves AWSCURRENT where it was).
 * - `STEPS_LOG`: a file to which each invocation appends `<Step> <token>` as it starts, whatever its outcome.
 * - `EXCLUDE_CHARACTERS`: as the template's (default `/@"'\`).
 * Nothing it prints holds a value.
 */

export interface RotationEvent {
  SecretId: string;
  ClientRequestToken: string;
  Step: string;
}

type Step = (client: SecretsManagerClient, arn: string, token: string) => Promise<void>;

/** What the template raises as Python's ValueError: a secret or version not set up for this rotation. */
class ValueError extends Error {
  override name = 'ValueError';
}

const DEFAULT_EXCLUDE_CHARACTERS = '/@"\'\\';

const stepsIn = (variable: string | undefined) => (variable ?? '').split(',').map((step) => step.trim());

/** The template's client: the endpoint from SECRETS_MANAGER_ENDPOINT, which it requires. */
function serviceClient(): SecretsManagerClient {
  const endpoint = process.env.SECRETS_MANAGER_ENDPOINT;
  if (!endpoint) throw new Error('SECRETS_MANAGER_ENDPOINT is not set');
  return new SecretsManagerClient({ endpoint, region: process.env.AWS_REGION });
}

/** Puts a random password as the token's AWSPENDING version, unless an earlier attempt of this step already did. */
async function createSecret(client: SecretsManagerClient, arn: string, token: string): Promise<void> {
  // Make sure the current secret exists.
  await client.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: 'AWSCURRENT' }));
  try {
    await client.send(new GetSecretValueCommand({ SecretId: arn, VersionId: token, VersionStage: 'AWSPENDING' }));
    console.log(`createSecret: Successfully retrieved secret for ${arn}.`);
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
    const excludeCharacters = process.env.EXCLUDE_CHARACTERS ?? DEFAULT_EXCLUDE_CHARACTERS;
    const { RandomPassword } = await client.send(new GetRandomPasswordCommand({ ExcludeCharacters: excludeCharacters }));
    await client.send(
      new PutSecretValueCommand({ SecretId: arn, ClientRequestToken: token, SecretString: RandomPassword, VersionStages: ['AWSPENDING'] }),
    );
    console.log(`createSecret: Successfully put secret for ARN ${arn} and version ${token}.`);
  }
}

/** The template's setSecret sets the pending value in the resource the secret is for: this stand-in has none. */
async function setSecret(): Promise<void> {}

/** The template's testSecret logs in with the pending value: this stand-in has nothing to log in to. */
async function testSecret(): Promise<void> {}

/** Moves AWSCURRENT to the token's version (from the version that has it), unless it is there already. */
async function finishSecret(client: SecretsManagerClient, arn: string, token: string): Promise<void> {
  const metadata = await client.send(new DescribeSecretCommand({ SecretId: arn }));
  let currentVersion: string | undefined;
  for (const [version, stages] of Object.entries(metadata.VersionIdsToStages ?? {})) {
    if (!stages.includes('AWSCURRENT')) continue;
    if (version === token) {
      console.log(`finishSecret: Version ${version} already marked as AWSCURRENT for ${arn}`);
      return;
    }
    currentVersion = version;
    break;
  }
  await client.send(
    new UpdateSecretVersionStageCommand({
      SecretId: arn,
      VersionStage: 'AWSCURRENT',
      MoveToVersionId: token,
      RemoveFromVersionId: currentVersion,
    }),
  );
  console.log(`finishSecret: Successfully set AWSCURRENT stage to version ${token} for secret ${arn}.`);
}

const STEPS: Record<string, Step> = { createSecret, setSecret, testSecret, finishSecret };

/** The failure a test asked for in this step, if any: a throw, or a wait nothing but a timeout ends. */
async function injectedFailure(step: string): Promise<void> {
  if (stepsIn(process.env.FAIL_STEP).includes(step)) throw new Error(`${step} failed on purpose`);
  if (stepsIn(process.env.HANG_STEP).includes(step)) {
    console.log(`${step}: hanging on purpose`);
    await new Promise<never>(() => setInterval(() => undefined, 60_000));
  }
}

/**
 * The rotation function: AWS's event `{SecretId, ClientRequestToken, Step}`. Refuses a secret whose rotation is off
 * and a token that is not AWSPENDING; a token already AWSCURRENT means the step has nothing left to do.
 */
export async function handler(event: RotationEvent): Promise<void> {
  const { SecretId: arn, ClientRequestToken: token, Step: step } = event;
  if (process.env.STEPS_LOG) appendFileSync(process.env.STEPS_LOG, `${step} ${token}\n`);
  const client = serviceClient();
  const metadata = await client.send(new DescribeSecretCommand({ SecretId: arn }));
  if (!metadata.RotationEnabled) throw new ValueError(`Secret ${arn} is not enabled for rotation`);
  const stages = metadata.VersionIdsToStages?.[token];
  if (!stages) throw new ValueError(`Secret version ${token} has no stage for rotation of secret ${arn}.`);
  if (stages.includes('AWSCURRENT')) {
    console.log(`Secret version ${token} already set as AWSCURRENT for secret ${arn}.`);
    return;
  }
  if (!stages.includes('AWSPENDING')) throw new ValueError(`Secret version ${token} not set as AWSPENDING for rotation of secret ${arn}.`);
  const run = Object.hasOwn(STEPS, step) ? STEPS[step] : undefined;
  if (!run) throw new ValueError(`Invalid step parameter ${step} for secret ${arn}`);
  await injectedFailure(step);
  if (stepsIn(process.env.SKIP_STEP).includes(step)) {
    console.log(`${step}: skipped on purpose`);
    return;
  }
  await run(client, arn, token);
}
