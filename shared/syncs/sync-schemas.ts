import * as z from 'zod/mini';
import { id, nullableTimestamp, timestamp } from '../platform/http/answer-schemas.ts';
import { once } from '../platform/http/once.ts';
import { maxUnits, minUnits } from '../platform/http/schemas.ts';
import { SYNC_STATUSES } from './sync-records.ts';

/**
 * What the syncs routes accept and answer (decisions.md v1.4, "Syncs"): each destination's fields with the platform's
 * own naming rules, so a sync that could never push is refused when it is made, naming the field and the rule. The
 * answers are built through these schemas: a destination is answered without its token, which is never stored in it.
 */

/** Parameter Store's longest name (1011) less the longest key (256): every `<pathPrefix><KEY>` is a valid name. */
export const MAX_SSM_PREFIX = 755;
/** Secrets Manager's longest name (512) less the longest key (256). */
export const MAX_SECRETS_MANAGER_PREFIX = 256;

// No lookahead (the API description's patterns are plain regular expressions every client can read): `.` and `..`,
// which GitHub refuses as names, are refused by a check of their own.
const REPOSITORY = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;
const ROLE_ARN = /^arn:aws(?:-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

/** A key pattern, as a permission rule's `keys` (the glob of shared/access/glob.ts): 1 to 256 characters. */
export const keysPatternSchema = once(() => z.string().check(minUnits(1), maxUnits(256)));

const repositorySchema = once(() =>
  z.string().check(
    maxUnits(140),
    z.regex(REPOSITORY, 'must be owner/repo as GitHub names them'),
    z.refine((value) => !/\/\.\.?$/.test(value), { error: 'must be owner/repo as GitHub names them' }),
  ),
);
const githubEnvironmentSchema = once(() =>
  z.string().check(minUnits(1), maxUnits(255), z.regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')),
);
const tokenSchema = once(() =>
  z.string().check(minUnits(1), maxUnits(1024), z.regex(/^[\u0021-\u007e]+$/, 'must be printable ASCII without spaces')),
);
/** https (the SSRF guard checks it further in the service, as a webhook url). */
const apiUrlSchema = once(() => z.string().check(minUnits(1), maxUnits(2048)));
const regionSchema = once(() => z.string().check(maxUnits(32), z.regex(REGION, 'must be an AWS region such as us-east-1')));
const roleArnSchema = once(() =>
  z.string().check(maxUnits(2048), z.regex(ROLE_ARN, 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/name')),
);
const externalIdSchema = once(() =>
  z.string().check(minUnits(2), maxUnits(1224), z.regex(/^[\w+=,.@:/-]+$/, 'may contain only letters, digits and _+=,.@:/-')),
);
const kmsKeyIdSchema = once(() =>
  z.string().check(minUnits(1), maxUnits(2048), z.regex(/^[A-Za-z0-9:/_+=,.@-]+$/, 'must be a KMS key id, ARN or alias')),
);
const ssmPrefixSchema = once(() =>
  z.string().check(
    minUnits(1),
    maxUnits(MAX_SSM_PREFIX),
    z.regex(/^[A-Za-z0-9_./-]+$/, 'may contain only letters, digits and _.-/'),
    z.refine((prefix) => !prefix.includes('/') || prefix.startsWith('/'), { error: 'must start with / when it has a path' }),
    z.refine((prefix) => !/^\/?(?:aws|ssm)/i.test(prefix), { error: 'must not begin with aws or ssm (reserved by Parameter Store)' }),
  ),
);
const secretsManagerPrefixSchema = once(() =>
  z
    .string()
    .check(
      minUnits(1),
      maxUnits(MAX_SECRETS_MANAGER_PREFIX),
      z.regex(/^[A-Za-z0-9/_+=.@-]+$/, 'may contain only letters, digits and /_+=.@-'),
    ),
);
const modeSchema = once(() => z.enum(['secret-per-key', 'json']));

const awsOptional = () => ({
  roleArn: z.optional(roleArnSchema()),
  externalId: z.optional(externalIdSchema()),
  kmsKeyId: z.optional(kmsKeyIdSchema()),
});
/** In a PATCH: null removes the field. */
const awsPatchOptional = () => ({
  roleArn: z.optional(z.nullable(roleArnSchema())),
  externalId: z.optional(z.nullable(externalIdSchema())),
  kmsKeyId: z.optional(z.nullable(kmsKeyIdSchema())),
});

/** A new sync's destination: GitHub's with its token (sealed by the service, never stored in the destination). */
export const destinationInputSchema = once(() =>
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('github-actions'),
      repository: repositorySchema(),
      environment: z.optional(githubEnvironmentSchema()),
      token: tokenSchema(),
      apiUrl: z.optional(apiUrlSchema()),
    }),
    z.strictObject({ type: z.literal('aws-ssm'), region: regionSchema(), pathPrefix: ssmPrefixSchema(), ...awsOptional() }),
    z.strictObject({
      type: z.literal('aws-secrets-manager'),
      region: regionSchema(),
      namePrefix: secretsManagerPrefixSchema(),
      ...awsOptional(),
      mode: z.optional(modeSchema()),
    }),
  ]),
);

/** A PATCH of the destination: its type (which cannot change) and the fields to change; null removes an optional one. */
export const destinationPatchSchema = once(() =>
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('github-actions'),
      repository: z.optional(repositorySchema()),
      environment: z.optional(z.nullable(githubEnvironmentSchema())),
      token: z.optional(tokenSchema()),
      apiUrl: z.optional(z.nullable(apiUrlSchema())),
    }),
    z.strictObject({
      type: z.literal('aws-ssm'),
      region: z.optional(regionSchema()),
      pathPrefix: z.optional(ssmPrefixSchema()),
      ...awsPatchOptional(),
    }),
    z.strictObject({
      type: z.literal('aws-secrets-manager'),
      region: z.optional(regionSchema()),
      namePrefix: z.optional(secretsManagerPrefixSchema()),
      ...awsPatchOptional(),
      mode: z.optional(z.nullable(modeSchema())),
    }),
  ]),
);

export type DestinationInput = z.infer<ReturnType<typeof destinationInputSchema>>;
export type DestinationPatch = z.infer<ReturnType<typeof destinationPatchSchema>>;

const awsAnswer = () => ({
  region: z.string(),
  roleArn: z.optional(z.string()),
  externalId: z.optional(z.string()),
  kmsKeyId: z.optional(z.string()),
});

/** A destination as answered: never a credential. */
export const destinationAnswer = once(() =>
  z.discriminatedUnion('type', [
    z.object({
      type: z.literal('github-actions'),
      repository: z.string(),
      environment: z.optional(z.string()),
      apiUrl: z.optional(z.string()),
    }),
    z.object({ type: z.literal('aws-ssm'), pathPrefix: z.string(), ...awsAnswer() }),
    z.object({
      type: z.literal('aws-secrets-manager'),
      namePrefix: z.string(),
      ...awsAnswer(),
      mode: z.optional(z.enum(['secret-per-key', 'json'])),
    }),
  ]),
);

export const syncAnswer = once(() =>
  z.object({
    id: id('sync'),
    environmentId: id('env'),
    destination: destinationAnswer(),
    keys: z.string(),
    prune: z.boolean(),
    status: z.enum(SYNC_STATUSES),
    lastSyncedAt: nullableTimestamp(),
    lastError: z.nullable(z.string()),
    createdAt: timestamp(),
  }),
);
