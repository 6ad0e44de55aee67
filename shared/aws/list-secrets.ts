import * as z from 'zod/mini';
import type { DeletedSecret, DeletedSecretService, SecretRecord, SecretService } from '../secrets/index.ts';
import { defineOperation } from './aws-handler.ts';
import { epochSeconds, lastChanged } from './names.ts';
import { hasValue, secretArn, secretPath, versionIdsToStages, type AwsPlace } from '../secrets/index.ts';
import { withNextToken } from './secret-lookup.ts';
import { tagList } from './secret-operations.ts';
import { describedRotation } from './rotation-operations.ts';
import type { RotationService } from '../rotation/index.ts';

/**
 * ListSecrets as AWS documents it, over the secrets service's search (what the caller may read, read on past the
 * rest): `MaxResults` 1 to 100, `NextToken` (the sealed cursor), and `Filters`: each a key and 1 to 10 values; values
 * of one filter are alternatives, filters all apply; a value starting with `!` negates. `name` matches as a prefix,
 * `description` as a prefix whatever the case, `tag-key` and `tag-value` as prefixes of a tag's key or value, and
 * `all` word by word (`wordsOf`) over all of them (decisions.md v1.4, "Filters"). AWS sorts by
 * CreatedDate: secret ids sort by creation, and the search goes by id, so `SortOrder` `desc` (the default) reads its
 * index down and `asc` up, from the same position a NextToken seals (bound to its order). `IncludePlannedDeletion`
 * lists, beside them, the secrets in their recovery window the caller may read, with `DeletedDate`, through the
 * deleted-secrets service (its records carry the same ids: shared/secrets/deleted-secret-index-store.ts).
 */

const FILTER_KEYS = ['description', 'name', 'tag-key', 'tag-value', 'primary-region', 'owning-service', 'all'] as const;

/** ListSecrets' and BatchGetSecretValue's `Filters`. */
export const listFiltersSchema = () =>
  z
    .array(
      z.object({
        Key: z.enum(FILTER_KEYS),
        Values: z.array(z.string().check(z.minLength(1), z.maxLength(512))).check(z.minLength(1), z.maxLength(10)),
      }),
    )
    .check(z.maxLength(10));

const input = z.object({
  MaxResults: z.optional(z.int().check(z.minimum(1), z.maximum(100))),
  NextToken: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
  Filters: z.optional(listFiltersSchema()),
  IncludePlannedDeletion: z.optional(z.boolean()),
  SortOrder: z.optional(z.enum(['asc', 'desc'])),
});

type Filter = NonNullable<z.infer<typeof input>['Filters']>[number];

/** The texts of a secret a filter key looks at. */
function fieldsOf(key: Filter['Key'], secret: SecretRecord): string[] {
  const tags = Object.entries(secret.tags ?? {});
  const description = secret.description === undefined ? [] : [secret.description];
  switch (key) {
    case 'name':
      return [secretPath(secret)];
    case 'description':
      return description;
    case 'tag-key':
      return tags.map(([tagKey]) => tagKey);
    case 'tag-value':
      return tags.map(([, value]) => value);
    case 'all':
      return [secretPath(secret), ...description, ...tags.flat()];
    default:
      // primary-region and owning-service: no secret here is a replica or owned by another service.
      return [];
  }
}

/**
 * The words of a text as AWS's `all` filter splits it, in lower case: at spaces and punctuation, where lower case
 * turns to upper case (`dbPassword`: db, password) and between letters and digits (`db2`: db, 2).
 */
export function wordsOf(text: string): string[] {
  return text
    .split(/[^\p{L}\p{N}]+/u)
    .flatMap((part) => part.split(/(?<=\p{Ll})(?=\p{Lu})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u))
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

/** Whether a filter value matches the texts a filter key looks at, as that key compares. */
function matcherOf(key: Filter['Key'], fields: string[]): (value: string) => boolean {
  if (key === 'description') {
    const lower = fields.map((field) => field.toLowerCase());
    return (value) => lower.some((field) => field.startsWith(value.toLowerCase()));
  }
  if (key === 'all') {
    const words = fields.flatMap(wordsOf);
    return (value) => wordsOf(value).some((wanted) => words.some((word) => word.startsWith(wanted)));
  }
  return (value) => fields.some((field) => field.startsWith(value));
}

/** Whether a secret passes one filter: any of its plain values matches, and none of its negated values does. */
function passes(filter: Filter, secret: SecretRecord): boolean {
  const hit = matcherOf(filter.Key, fieldsOf(filter.Key, secret));
  const plain = filter.Values.filter((value) => !value.startsWith('!'));
  const negated = filter.Values.filter((value) => value.startsWith('!')).map((value) => value.slice(1));
  return (plain.length === 0 || plain.some(hit)) && !negated.some(hit);
}

/** The predicate of a list of filters (all must pass), or undefined for none. */
export const matchingFilters = (filters: readonly Filter[]) =>
  filters.length === 0 ? undefined : (record: SecretRecord) => filters.every((filter) => passes(filter, record));

export function makeListSecrets(
  secrets: SecretService,
  deletedSecrets: DeletedSecretService,
  place: AwsPlace,
  rotations: Pick<RotationService, 'rotationRecords'>,
) {
  return defineOperation({
    input,
    handle: async (principal, request) => {
      const options = { matching: matchingFilters(request.Filters ?? []), newestFirst: request.SortOrder !== 'asc' };
      const wanted = { limit: request.MaxResults ?? 100, cursor: request.NextToken };
      const page = await withNextToken<{ items: (SecretRecord | DeletedSecret)[]; nextCursor: string | null }>(() =>
        request.IncludePlannedDeletion
          ? deletedSecrets.listWithLive(principal, wanted, options)
          : secrets.search(principal, undefined, wanted, options),
      );
      // Each entry's rotation as DescribeSecret shows it (decisions.md v1.4): one BatchGetItem for the page.
      const stored = await rotations.rotationRecords(principal, page.items);
      return {
        SecretList: page.items.map((secret) => ({
          ARN: secretArn(place, secret),
          Name: secretPath(secret),
          LastChangedDate: lastChanged(secret),
          CreatedDate: epochSeconds(secret.createdAt),
          // As DescribeSecret shows a secret in its recovery window.
          ...('deletedAt' in secret && { DeletedDate: epochSeconds(secret.deletedAt) }),
          ...(secret.description !== undefined && { Description: secret.description }),
          ...describedRotation(stored.get(secret.id)),
          Tags: tagList(secret),
          ...(hasValue(secret) && { SecretVersionsToStages: versionIdsToStages(secret) }),
        })),
        ...(page.nextCursor !== null && { NextToken: page.nextCursor }),
      };
    },
  });
}
