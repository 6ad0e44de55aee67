import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * What Lambda bundles use in place of `@aws-sdk/credential-provider-node` (an esbuild alias in the CDK bundling):
 * Lambda always hands a function its role's credentials in environment variables, so the default chain's SSO, INI,
 * process, web-identity and IMDS providers (and the STS/SSO clients they carry) are dead weight in a bundle and on
 * cold start. Same signature as the default provider.
 */
export const defaultProvider = (_init?: unknown) => fromEnv();
