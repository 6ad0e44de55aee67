/**
 * A rotation function for a PostgreSQL user, alternating-users strategy (docs/rotation.md): two users, `app_user` and
 * `app_user_clone`, take turns. Each rotation sets a new password on the user that is not current, tests it, and makes
 * that user's credentials AWSCURRENT, so the credentials applications hold keep working until they fetch the new ones.
 *
 * The secret's value is JSON: `{engine: "postgres", host, port, dbname, username, password, masterarn}` (and
 * `ssl: false` for a database without TLS). `masterarn` names the secret, in this same service, of a user that may
 * create roles and change passwords; it holds the same fields without `masterarn`.
 *
 * Settings: SECRETS_MANAGER_ENDPOINT (the service's base URL; the local stack sets it), SECRETS_ACCESS_KEY_ID (an
 * access key with auth `aws_iam` for this function's role, with `write` and `reveal` on the secret and `reveal` on
 * the master secret), EXCLUDE_CHARACTERS (optional). Dependencies: @aws-sdk/client-secrets-manager,
 * @secrets-service/sdk, pg.
 */
import {
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { fromSecretsService } from '@secrets-service/sdk/aws';
import { Client, escapeIdentifier, escapeLiteral } from 'pg';

interface RotationEvent {
  SecretId: string;
  ClientRequestToken: string;
  Step: 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';
}

interface DatabaseSecret {
  engine: 'postgres';
  host: string;
  port?: number | string;
  dbname?: string;
  username: string;
  password: string;
  masterarn?: string;
  ssl?: boolean;
}

const CLONE_SUFFIX = '_clone';
const DEFAULT_EXCLUDE_CHARACTERS = '/@"\'\\';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

// Once per container: the client logs in with the function's IAM role and renews its credentials by itself.
const endpoint = requiredEnv('SECRETS_MANAGER_ENDPOINT');
const secretsManager = new SecretsManagerClient({
  endpoint,
  region: process.env.AWS_REGION,
  credentials: fromSecretsService({ baseUrl: endpoint, accessKeyId: requiredEnv('SECRETS_ACCESS_KEY_ID'), method: 'aws_iam' }),
});

/** Entry point: checks the token is the secret's pending version, then runs the step. */
export async function handler(event: RotationEvent): Promise<void> {
  const { SecretId: arn, ClientRequestToken: token, Step: step } = event;
  const metadata = await secretsManager.send(new DescribeSecretCommand({ SecretId: arn }));
  if (!metadata.RotationEnabled) throw new Error(`Secret ${arn} is not enabled for rotation`);
  const stages = metadata.VersionIdsToStages?.[token];
  if (!stages) throw new Error(`Secret version ${token} has no stage for rotation of secret ${arn}`);
  // A step invoked again after the rotation finished has nothing left to do.
  if (stages.includes('AWSCURRENT')) return;
  if (!stages.includes('AWSPENDING')) throw new Error(`Secret version ${token} is not AWSPENDING for secret ${arn}`);
  switch (step) {
    case 'createSecret':
      return createSecret(arn, token);
    case 'setSecret':
      return setSecret(arn, token);
    case 'testSecret':
      return testSecret(arn, token);
    case 'finishSecret':
      return finishSecret(arn, token);
    default:
      throw new Error(`Invalid step ${String(step)}`);
  }
}

/** The pending version: the other user, with a new password (unless an earlier attempt of this step put it). */
async function createSecret(arn: string, token: string): Promise<void> {
  const current = await secretValue(arn, { VersionStage: 'AWSCURRENT' });
  try {
    await secretValue(arn, { VersionId: token, VersionStage: 'AWSPENDING' });
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  const { RandomPassword } = await secretsManager.send(
    new GetRandomPasswordCommand({ ExcludeCharacters: process.env.EXCLUDE_CHARACTERS ?? DEFAULT_EXCLUDE_CHARACTERS }),
  );
  const pending: DatabaseSecret = { ...current, username: otherUser(current.username), password: RandomPassword! };
  await secretsManager.send(
    new PutSecretValueCommand({
      SecretId: arn,
      ClientRequestToken: token,
      SecretString: JSON.stringify(pending),
      VersionStages: ['AWSPENDING'],
    }),
  );
  console.log(`createSecret: put the pending version ${token} of ${arn} for user ${pending.username}`);
}

/** Sets the pending password on the other user as the master user, creating that user the first time. */
async function setSecret(arn: string, token: string): Promise<void> {
  const current = await secretValue(arn, { VersionStage: 'AWSCURRENT' });
  const pending = await secretValue(arn, { VersionId: token, VersionStage: 'AWSPENDING' });
  if (await logsIn(pending)) return; // an earlier attempt of this step set it
  if (pending.username !== otherUser(current.username) || pending.host !== current.host)
    throw new Error(`setSecret: the pending version must be user ${otherUser(current.username)} on host ${current.host}`);
  if (!current.masterarn) throw new Error('setSecret: the secret has no masterarn');
  // The current credentials must work before the master's are used on their behalf (AWS's confused-deputy check).
  if (!(await logsIn(current))) throw new Error(`setSecret: user ${current.username} cannot log in with the current password`);
  const master = await secretValue(current.masterarn, { VersionStage: 'AWSCURRENT' });
  if (master.host !== current.host) throw new Error(`setSecret: the master secret is for host ${master.host}, not ${current.host}`);
  await withConnection({ ...master, dbname: current.dbname }, async (db) => {
    // ALTER USER and CREATE ROLE take no bind parameters: the name is quoted as an identifier, the password as a literal.
    const user = escapeIdentifier(pending.username);
    const password = escapeLiteral(pending.password);
    await db.query('BEGIN');
    try {
      const existing = await db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [pending.username]);
      if (existing.rowCount === 0) {
        await db.query(`CREATE ROLE ${user} WITH LOGIN PASSWORD ${password}`);
        // The clone is a member of the original user, so it has the same grants, now and later.
        await db.query(`GRANT ${escapeIdentifier(current.username)} TO ${user}`);
      } else {
        await db.query(`ALTER USER ${user} WITH PASSWORD ${password}`);
      }
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK');
      throw error;
    }
  });
  console.log(`setSecret: set the password of ${pending.username} for ${arn}`);
}

/** Logs in with the pending credentials and runs a query: a failure here fails the rotation before anything moves. */
async function testSecret(arn: string, token: string): Promise<void> {
  const pending = await secretValue(arn, { VersionId: token, VersionStage: 'AWSPENDING' });
  await withConnection(pending, (db) => db.query('SELECT 1'));
  console.log(`testSecret: ${pending.username} logged in with the pending version of ${arn}`);
}

/** Moves AWSCURRENT to the pending version (AWSPREVIOUS follows the version that had it). */
async function finishSecret(arn: string, token: string): Promise<void> {
  const metadata = await secretsManager.send(new DescribeSecretCommand({ SecretId: arn }));
  const current = Object.entries(metadata.VersionIdsToStages ?? {}).find(([, stages]) => stages.includes('AWSCURRENT'))?.[0];
  if (current === token) return;
  await secretsManager.send(
    new UpdateSecretVersionStageCommand({
      SecretId: arn,
      VersionStage: 'AWSCURRENT',
      MoveToVersionId: token,
      RemoveFromVersionId: current,
    }),
  );
  console.log(`finishSecret: version ${token} of ${arn} is AWSCURRENT`);
}

/** `app_user` ↔ `app_user_clone`. */
function otherUser(username: string): string {
  const other = username.endsWith(CLONE_SUFFIX) ? username.slice(0, -CLONE_SUFFIX.length) : `${username}${CLONE_SUFFIX}`;
  if (Buffer.byteLength(other) > 63) throw new Error(`${other} is longer than PostgreSQL's 63-byte names`);
  return other;
}

/** A version's JSON, checked. A parse error is replaced: V8's message quotes the text, which is a password. */
async function secretValue(secretId: string, version: { VersionId?: string; VersionStage: string }): Promise<DatabaseSecret> {
  const { SecretString } = await secretsManager.send(new GetSecretValueCommand({ SecretId: secretId, ...version }));
  let value: DatabaseSecret;
  try {
    value = JSON.parse(SecretString ?? '') as DatabaseSecret;
  } catch {
    throw new Error(`${secretId} (${version.VersionStage}) is not JSON`);
  }
  if (value.engine !== 'postgres') throw new Error(`${secretId}: engine must be "postgres"`);
  for (const field of ['host', 'username', 'password'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '') throw new Error(`${secretId}: ${field} is missing`);
  }
  return value;
}

/** Runs `work` on a connection made with `secret`'s credentials, and closes it. */
async function withConnection<T>(secret: DatabaseSecret, work: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({
    host: secret.host,
    port: Number(secret.port ?? 5432),
    database: secret.dbname ?? 'postgres',
    user: secret.username,
    password: secret.password,
    // TLS with the server's certificate checked (for RDS, its CA bundle in NODE_EXTRA_CA_CERTS), unless the secret says not.
    ssl: secret.ssl !== false,
    connectionTimeoutMillis: 5_000,
  });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/** Whether `secret`'s credentials log in (any failure is a no: the caller decides what that means). */
async function logsIn(secret: DatabaseSecret): Promise<boolean> {
  try {
    await withConnection(secret, (db) => db.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}
