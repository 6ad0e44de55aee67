import * as z from 'zod/mini';
import type { SecretService } from '../secrets/index.ts';
import { AwsError, toAwsError } from './aws-errors.ts';
import { defineOperation } from './aws-handler.ts';
import { listFiltersSchema, matchingFilters } from './list-secrets.ts';
import { epochSeconds, matchesReference, parseSecretId, valueField } from './names.ts';
import { secretArn, secretPath, stagesOf, versionIdOf, type AwsPlace } from '../secrets/index.ts';
import { withNextToken } from './secret-lookup.ts';
import { secretIdSchema } from './get-secret-value.ts';

/**
 * BatchGetSecretValue as AWS documents it (decisions.md: `SecretIdList` of 1 to 20, or `Filters`; `Errors` for what
 * fails): the current values of up to 20 secrets through the secrets service's batched reveal, which reads them in
 * one request, decides each by the policy as GetSecretValue would, counts the batch once against the reveal limits
 * and writes the entries together before any value leaves. References are resolved for the whole batch at once
 * (decisions.md v1.4, "Secret references"). A secret that fails is an `Errors` item (its AWS error type and message:
 * one whose references cannot be resolved is InvalidRequestException naming them); a batch the rate limit refuses is
 * ThrottlingException as a whole.
 */

const MAX_SECRETS = 20;

const input = z.object({
  SecretIdList: z.optional(z.array(secretIdSchema()).check(z.minLength(1), z.maxLength(MAX_SECRETS))),
  Filters: z.optional(listFiltersSchema()),
  MaxResults: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_SECRETS))),
  NextToken: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
});

export function makeBatchGetSecretValue(secrets: SecretService, place: AwsPlace) {
  return defineOperation({
    input,
    handle: async (principal, request) => {
      if ((request.SecretIdList === undefined) === (request.Filters === undefined))
        throw new AwsError('InvalidParameterException', 'SecretIdList or Filters: give exactly one of them.');
      if (request.SecretIdList && (request.MaxResults !== undefined || request.NextToken !== undefined))
        throw new AwsError('InvalidParameterException', 'MaxResults and NextToken: only with Filters.');
      let wanted;
      let nextToken: string | null = null;
      if (request.SecretIdList) {
        const ids = [...new Set(request.SecretIdList)];
        wanted = ids.map((id) => {
          const references = parseSecretId(id, place);
          return {
            id,
            paths: references.map((reference) => reference.name),
            accepts: (secret: { id: string; projectSlug: string; envSlug: string; key: string }) =>
              references.some((reference) => reference.name === secretPath(secret) && matchesReference(reference, secret.id)),
          };
        });
      } else {
        const page = await withNextToken(() =>
          secrets.search(
            principal,
            undefined,
            { limit: request.MaxResults ?? MAX_SECRETS, cursor: request.NextToken },
            { matching: matchingFilters(request.Filters ?? []) },
          ),
        );
        nextToken = page.nextCursor;
        wanted = page.items.map((secret) => ({
          id: secretArn(place, secret),
          paths: [secretPath(secret)],
          accepts: (found: { id: string }) => found.id === secret.id,
        }));
      }
      const results = await secrets.revealBatch(principal, wanted);
      const values = [];
      const errors = [];
      for (const [i, result] of results.entries()) {
        if ('value' in result && result.value !== undefined) {
          values.push({
            ARN: secretArn(place, result.secret),
            Name: secretPath(result.secret),
            VersionId: versionIdOf(result.secret, result.version),
            ...valueField(result),
            VersionStages: stagesOf(result.secret, result.version),
            CreatedDate: epochSeconds(result.versionCreatedAt),
          });
        } else {
          const error = toAwsError(result.error);
          // A failure of ours is the whole call's, as AWS answers it: never a half answer that hides it.
          if (error.status >= 500) throw result.error;
          errors.push({ SecretId: wanted[i]!.id, ErrorCode: error.type, Message: error.message });
        }
      }
      return { SecretValues: values, Errors: errors, ...(nextToken !== null && { NextToken: nextToken }) };
    },
  });
}
