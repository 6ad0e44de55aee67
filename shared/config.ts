import * as z from 'zod';

const optionalString = z.string().trim().min(1).optional();

const configSchema = z.object({
  TABLE_NAME: z.string().min(1, 'TABLE_NAME is required'),
  /** Set by the local stack only; in AWS the SDK's regional endpoint is used. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  JWT_ISSUER: optionalString,
  JWT_AUDIENCE: optionalString,
  JWT_JWKS_URI: z.url().optional(),
  JWT_WORKSPACE_CLAIM: z.string().min(1).default('workspace_id'),
  SERVICE_NAME: z.string().min(1).default('secrets-service'),
});

export type Config = {
  tableName: string;
  dynamodbEndpoint: string | undefined;
  jwt: { issuer: string; audience: string; jwksUri: string; workspaceClaim: string } | undefined;
  serviceName: string;
};

/**
 * Reads and validates the environment once, at cold start; a missing or malformed setting fails loudly here
 * rather than on a customer's request.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const c = parsed.data;
  const jwtParts = [c.JWT_ISSUER, c.JWT_AUDIENCE, c.JWT_JWKS_URI];
  if (jwtParts.some(Boolean) && !jwtParts.every(Boolean)) {
    throw new Error('Invalid configuration: JWT_ISSUER, JWT_AUDIENCE and JWT_JWKS_URI must be set together');
  }
  return {
    tableName: c.TABLE_NAME,
    dynamodbEndpoint: c.DYNAMODB_ENDPOINT,
    jwt: c.JWT_ISSUER
      ? { issuer: c.JWT_ISSUER, audience: c.JWT_AUDIENCE!, jwksUri: c.JWT_JWKS_URI!, workspaceClaim: c.JWT_WORKSPACE_CLAIM }
      : undefined,
    serviceName: c.SERVICE_NAME,
  };
}
