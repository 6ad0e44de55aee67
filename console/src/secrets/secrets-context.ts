import type { components, SecretsClient } from '@secrets-service/sdk/client';

/**
 * The secrets views' types, and the one walk of a whole list they need (compare reads both environments' keys). A
 * view loads what it shows by id, one request per object (decisions.md, "Lookups by id"), and keeps nothing here:
 * what must outlive a navigation is in the address.
 */
export type EnvironmentItem = components['schemas']['Environment'];
export type SecretItem = components['schemas']['SecretListItem'];

type Page<T> = { data?: { data: T[]; meta: { page?: { nextCursor: string | null } } }; error?: unknown; response: Response };

/** Every item of a list route, following `nextCursor`. */
export async function listAll<T>(client: SecretsClient, list: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of client.paginate(list)) items.push(item);
  return items;
}
