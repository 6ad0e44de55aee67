import * as z from 'zod/mini';
import { id, nullableTimestamp, timestamp } from '../platform/http/answer-schemas.ts';
import { accessKeyAuthAnswer } from './login-schemas.ts';
import { once } from '../platform/http/once.ts';
import { permissionRuleAnswer } from './permission-schemas.ts';

/**
 * What the access-keys routes answer: a module of its own (shared/platform/http/answer-schemas.ts holds the rest), so that the
 * schemas of permissions and logins are in the access-keys function's bundle only.
 */

export const accessKeyAnswer = once(() =>
  z.object({
    id: id('ak'),
    name: z.string(),
    identityId: id('mid'),
    tokenPrefix: z.nullable(z.string()),
    createdAt: timestamp(),
    createdBy: z.string(),
    expiresAt: nullableTimestamp(),
    revokedAt: nullableTimestamp(),
    lastUsedAt: nullableTimestamp(),
    status: z.enum(['active', 'revoked', 'expired']),
    permissions: z.array(permissionRuleAnswer()),
    allowedCidrs: z.array(z.string()),
    auth: accessKeyAuthAnswer(),
    tokenTtlSeconds: z.nullable(z.int()),
  }),
);

/**
 * The creation answer: the record and the token, shown this once (null for keys that log in with AWS IAM or OIDC,
 * and for AWS key pairs), and an AWS key pair's secret half, shown this once too.
 */
export const accessKeyCreated = once(() =>
  z.extend(accessKeyAnswer(), { token: z.nullable(z.string()), awsSecretAccessKey: z.optional(z.string()) }),
);
