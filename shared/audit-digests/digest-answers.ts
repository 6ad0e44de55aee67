import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/answer-schemas.ts';
import { once } from '../platform/http/once.ts';

/**
 * What the API answers about the digests (decisions.md v1.4, "Audit streams and tamper evidence"): each field of a
 * digest as the digester signed it, so a verifier can check it with the public key alone, and the public key.
 */

const sha256Hex = () => z.string().check(z.regex(/^[0-9a-f]{64}$/));

export const auditDigestAnswer = once(() =>
  z.object({
    workspaceId: id('ws'),
    hourStart: timestamp(),
    count: z.number(),
    firstId: id('aud'),
    lastId: id('aud'),
    entriesSha256: sha256Hex(),
    previousDigestSha256: z.nullable(sha256Hex()),
    signature: z.string(),
  }),
);

export const auditPublicKeyAnswer = once(() => z.object({ pem: z.string() }));
