import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/answer-schemas.ts';
import { once } from '../platform/http/once.ts';
import { STATUSES } from './change-request-records.ts';

/**
 * What the API answers about change requests (decisions.md v1.4): built through these schemas, so the sealed
 * proposed values and the item's keys cannot reach a client; a value leaves only through its reveal's answer.
 */

export const changeRequestAnswer = once(() =>
  z.object({
    id: id('cr'),
    environmentId: id('env'),
    title: z.string(),
    description: z.nullable(z.string()),
    status: z.enum(STATUSES),
    authorSub: z.string(),
    changes: z.array(z.object({ key: z.string(), action: z.enum(['set', 'delete']), baseVersion: z.int() })),
    reviews: z.array(
      z.object({
        reviewerSub: z.string(),
        decision: z.enum(['approve', 'reject']),
        comment: z.nullable(z.string()),
        createdAt: timestamp(),
      }),
    ),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
);

/** A proposed value's reveal. */
export const proposedValueAnswer = once(() => z.object({ key: z.string(), value: z.string() }));
