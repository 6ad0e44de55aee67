import { NotFoundError, ValidationError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import type { DeletedSecret, DeletedSecretService, SecretRecord, SecretService } from '../secrets/index.ts';
import { AwsError } from './aws-errors.ts';
import { firstFound, matchesReference, parseSecretId } from './names.ts';
import { type AwsPlace } from '../secrets/index.ts';

/**
 * How the AWS API's operations find the secret a `SecretId` names (decisions.md, "Names"): through the services'
 * reads, which ask the policy (`read`) first. A secret in its recovery window is found by its name too, so each
 * operation can answer for it as AWS does (DescribeSecret shows it; a reveal or a write is InvalidRequestException).
 */

/** AWS's answer to a read or write of a secret in its recovery window. */
export const markedForDeletion = () =>
  new AwsError('InvalidRequestException', "You can't perform this operation on the secret because it was marked for deletion.");

/** A paged read whose bad cursor is AWS's InvalidNextTokenException. */
export async function withNextToken<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ValidationError && error.message.startsWith('cursor:'))
      throw new AwsError('InvalidNextTokenException', 'The NextToken value is invalid.');
    throw error;
  }
}

export type FoundSecret = { live: SecretRecord; deleted?: undefined } | { live?: undefined; deleted: DeletedSecret };

export function makeSecretLookup(secrets: SecretService, deletedSecrets: DeletedSecretService, place: AwsPlace) {
  /** The live secret a SecretId names, as the caller may read it, never its value. */
  const live = (principal: Principal, id: string) =>
    firstFound(parseSecretId(id, place), async (reference) => {
      const found = await secrets.readByPath(principal, reference.name);
      if (!matchesReference(reference, found.id)) throw new NotFoundError('no such secret');
      return found;
    });

  /** The deleted secret (in its recovery window) a SecretId names, as the caller may read it. */
  const deleted = (principal: Principal, id: string) =>
    firstFound(parseSecretId(id, place), async (reference) => {
      const found = await deletedSecrets.readByPath(principal, reference.name);
      if (!matchesReference(reference, found.id)) throw new NotFoundError('no such secret');
      return found;
    });

  /** The live secret, else the deleted one; ResourceNotFoundException when neither. One read for a live secret. */
  async function anySecret(principal: Principal, id: string): Promise<FoundSecret> {
    try {
      return { live: await live(principal, id) };
    } catch (error) {
      if (!(error instanceof AwsError && error.type === 'ResourceNotFoundException')) throw error;
      return { deleted: await deleted(principal, id) };
    }
  }

  /** The live secret; InvalidRequestException for one in its recovery window. */
  async function liveSecret(principal: Principal, id: string): Promise<SecretRecord> {
    const found = await anySecret(principal, id);
    if (found.deleted) throw markedForDeletion();
    return found.live;
  }

  /** After a live lookup missed: InvalidRequestException when the SecretId names a deleted secret, else `error`. */
  async function missed(principal: Principal, id: string, error: unknown): Promise<never> {
    if (!(error instanceof AwsError && error.type === 'ResourceNotFoundException')) throw error;
    await deleted(principal, id);
    throw markedForDeletion();
  }

  return { live, deleted, anySecret, liveSecret, missed };
}

export type SecretLookup = ReturnType<typeof makeSecretLookup>;
