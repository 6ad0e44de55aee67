import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/answer-schemas.ts';
import { once } from '../platform/http/once.ts';

/**
 * What the API answers about projects and environments: each schema defined once and built on first use; the answer is built through it,
 * so a stored field not named here cannot reach a client (shared/platform/http/answer-schemas.ts says more).
 */

export const projectAnswer = once(() =>
  z.object({ id: id('proj'), name: z.string(), slug: z.string(), createdAt: timestamp(), createdBy: z.string() }),
);

export const environmentAnswer = once(() =>
  z.object({ id: id('env'), projectId: id('proj'), name: z.string(), slug: z.string(), createdAt: timestamp() }),
);

/** One environment by id: the list item plus its project's slug (decisions.md, "Lookups by id"). */
export const environmentDetail = once(() => z.extend(environmentAnswer(), { projectSlug: z.string() }));

/**
 * An environment's review policy (decisions.md v1.4, "Change requests"): the approvals a change request needs, and
 * the access keys (`key_`, `ak_`) that may still write its secrets directly.
 */
export const reviewPolicyAnswer = once(() =>
  z.object({ environmentId: id('env'), requiredApprovals: z.int(), bypass: z.array(z.string()) }),
);
