import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/answer-schemas.ts';
import { once } from '../platform/http/once.ts';

/**
 * What the API answers about secrets, their versions and reveals: each schema defined once and built on first use; the answer is built through it,
 * so a stored field not named here cannot reach a client (shared/platform/http/answer-schemas.ts says more).
 */

/** A secret as lists show it: never a value. */
export const secretListItem = once(() =>
  z.object({ id: id('sec'), key: z.string(), currentVersion: z.int(), createdAt: timestamp(), updatedAt: timestamp() }),
);

/** A search result: the list item and where the secret lives. */
export const secretSearchItem = once(() =>
  z.extend(secretListItem(), {
    projectId: id('proj'),
    projectSlug: z.string(),
    environmentId: id('env'),
    envSlug: z.string(),
    path: z.string(),
  }),
);

/** What a write (PUT, rollback) answers: the version it made. */
export const secretWriteResult = once(() => z.object({ id: id('sec'), key: z.string(), version: z.int() }));

/** One version in a secret's history: who wrote it when, what it restored, its VersionId and labels. Never a value. */
export const versionAnswer = once(() =>
  z.object({
    version: z.int(),
    createdAt: timestamp(),
    createdBy: z.string(),
    rolledBackFrom: z.nullable(z.int()),
    versionId: z.string(),
    stages: z.array(z.string()),
  }),
);

/** A secret's rotation (decisions.md v1.3): on or off, its function (null: the service writes a random value), when. */
export const rotationDetail = once(() =>
  z.object({
    enabled: z.boolean(),
    function: z.nullable(z.string()),
    schedule: z.string(),
    duration: z.nullable(z.string()),
    lastRotatedAt: z.nullable(timestamp()),
    nextRotationAt: z.nullable(timestamp()),
  }),
);

/**
 * One secret by id (decisions.md, "REST sees the same objects"): the list item plus where it lives, its ARN, the
 * AWS API's description and tags, its rotation (null when none is configured), the targets (paths) its current
 * value references and the secrets (ids) whose current value references it. Never a value.
 */
export const secretDetail = once(() =>
  z.extend(secretListItem(), {
    projectId: id('proj'),
    environmentId: id('env'),
    path: z.string(),
    arn: z.string(),
    description: z.nullable(z.string()),
    tags: z.record(z.string(), z.string()),
    rotation: z.nullable(rotationDetail()),
    // Secret references (decisions.md v1.4): only this route reads the reverse index, lists never do.
    references: z.array(z.string()),
    referencedBy: z.array(id('sec')),
  }),
);

/**
 * How a binary value (the AWS API's SecretBinary) is answered: its base64 text in `value`, with `encoding: "base64"`
 * beside it; a string value has no `encoding` (decisions.md v1.4).
 */
const encoding = () => z.optional(z.literal('base64'));

/** A revealed value. */
export const revealResult = once(() => z.object({ key: z.string(), version: z.int(), value: z.string(), encoding: encoding() }));

/** One secret of a loaded environment: its current version and value. */
export const environmentValueAnswer = once(() =>
  z.object({ id: id('sec'), key: z.string(), version: z.int(), value: z.string(), encoding: encoding() }),
);

/** A reveal by path also names the secret. */
export const revealByPathResult = once(() => z.extend(revealResult(), { id: id('sec') }));

/** What a delete answers. */
/** A deleted secret in its environment's list: restorable until `purgeAt`. Never a value. */
export const deletedSecretAnswer = once(() =>
  z.object({
    id: id('sec'),
    key: z.string(),
    currentVersion: z.int(),
    deletedAt: timestamp(),
    deletedBy: z.string(),
    purgeAt: timestamp(),
  }),
);
