import * as z from 'zod/mini';
import { AUDIT_ACTIONS } from './audit-actions.ts';
import { id, timestamp } from '../platform/http/answer-schemas.ts';
import { once } from '../platform/http/once.ts';

/**
 * What the API answers about the audit log: each schema defined once and built on first use; the answer is built through it,
 * so a stored field not named here cannot reach a client (shared/platform/http/answer-schemas.ts says more).
 */

export const auditEntryAnswer = once(() =>
  z.object({
    id: id('aud'),
    action: z.enum(AUDIT_ACTIONS),
    actorSub: z.string(),
    target: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: timestamp(),
  }),
);
