import { Option, type Command } from 'commander';
import { checkApiUrl, connectionOptions, credentialOf, UsageError, type Connection } from './cli-context.js';
import { logInWithSso, ssoOptions } from './cli-sso.js';
import { loginBodies, postLogin, type LoginAnswer } from './login.js';

/** The output forms of `secrets login`. */
export const LOGIN_FORMATS = ['token', 'env', 'json', 'aws'] as const;
type LoginFormat = (typeof LOGIN_FORMATS)[number];

/** One attempt of the login, bounded like the client's (10 s). */
const timedFetch: typeof fetch = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(10_000) });

/**
 * Logs in once with the access key of the flags and environment (`--access-key-id`, `--auth`, …) and answers the
 * API's answer; every missing or conflicting option is a usage error before any request.
 */
export async function logIn(flags: Connection, format: 'token' | 'aws' = 'token'): Promise<LoginAnswer> {
  const apiUrl = flags.apiUrl ?? process.env.SECRETS_API_URL;
  if (!apiUrl) throw new UsageError('the API URL is required: --api-url or SECRETS_API_URL');
  checkApiUrl(apiUrl);
  const { auth } = credentialOf(flags, { accessKeyOnly: true });
  let bodies: ReturnType<typeof loginBodies>;
  try {
    bodies = loginBodies(auth!, apiUrl);
  } catch (error) {
    throw error instanceof TypeError ? new UsageError(error.message) : error;
  }
  const body = await bodies();
  return postLogin(apiUrl, format === 'aws' ? { ...body, format } : body, timedFetch);
}

/**
 * The answer in the chosen form: the bare token, a `SECRETS_TOKEN=…` line, the whole answer as JSON, or (`aws`) the
 * temporary AWS credentials as AWS's `credential_process` prints them.
 */
export function formatLogin(answer: LoginAnswer, format: LoginFormat): string {
  if (format === 'json') return `${JSON.stringify(answer, null, 2)}\n`;
  if (format === 'aws') {
    const aws = answer.awsCredentials!;
    const process = {
      Version: 1,
      AccessKeyId: aws.accessKeyId,
      SecretAccessKey: aws.secretAccessKey,
      SessionToken: aws.sessionToken,
      Expiration: aws.expiration,
    };
    return `${JSON.stringify(process)}\n`;
  }
  return format === 'env' ? `SECRETS_TOKEN=${answer.token}\n` : `${answer.token}\n`;
}

/**
 * `secrets login`: prints a short-lived token of an access key that logs in with AWS IAM or OIDC; with `--sso`, signs
 * a person in through the identity provider and keeps the session for later commands (cli-sso.ts).
 */
export function registerLogin(cli: Command, connection: () => Connection): void {
  const login = cli
    .command('login')
    .description('log in with an access key (--access-key-id, --auth) and print the short-lived token; or sign in as a person (--sso)');
  ssoOptions(connectionOptions(login, { token: false }))
    .addOption(
      new Option(
        '--format <format>',
        "token: the bare token; env: SECRETS_TOKEN=…; json: the whole answer (token, expiresAt, accessKeyId, identityId); aws: temporary AWS credentials for the service's AWS API, as AWS's credential_process prints them",
      )
        .choices([...LOGIN_FORMATS])
        .default('token'),
    )
    .addHelpText(
      'after',
      [
        '\nThe token is valid until expiresAt (the access key sets its life); other commands can log in by themselves',
        'with the same options instead. With --auth oidc the token comes from --oidc-token-file, SECRETS_OIDC_TOKEN_FILE,',
        'SECRETS_OIDC_TOKEN, or in GitHub Actions from the runner (permissions: id-token: write; --oidc-audience).',
        "With --auth aws-iam the AWS SDK's default credentials sign it (STS endpoint: SECRETS_AWS_STS_ENDPOINT, else AWS_REGION's).",
        '\nWith --sso a person signs in in a browser (authorization code + PKCE, redirected to 127.0.0.1): the access',
        'token is kept in $XDG_CONFIG_HOME/secrets/session.json (default ~/.config; mode 600), and every command without',
        'a credential of its own uses it for that API until it expires; with the refresh token the provider gives (scope',
        'offline_access), it is renewed before then. Nothing is printed on stdout. `secrets logout` forgets it.',
        "\nWith --format aws the AWS CLI and SDKs can use it as a profile's credential_process, e.g. in ~/.aws/config:",
        '  credential_process = npx secrets login --api-url https://… --access-key-id ak_… --auth oidc --format aws',
        '\nExamples: secrets login --access-key-id ak_… --auth aws-iam',
        '          secrets login --access-key-id ak_… --auth oidc --oidc-audience secrets --format env >> "$GITHUB_ENV"',
        '          secrets login --sso --issuer https://login.example.com --client-id secrets-cli --open',
      ].join('\n'),
    )
    .action(async (flags: { format: LoginFormat; sso?: boolean }) => {
      if (flags.sso) return logInWithSso(connection());
      process.stdout.write(formatLogin(await logIn(connection(), flags.format === 'aws' ? 'aws' : 'token'), flags.format));
    });
}
