import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import type { RouteAccess } from './authentication.ts';
import { defineRoute, listOutput, type RouteDefinition, type RouteInput } from './route.ts';
import { pageQuerySchema } from './schemas.ts';

type PageQuery = z.infer<ReturnType<typeof pageQuerySchema>>;
type Page = { items: unknown[]; nextCursor: string | null; hasMore: boolean };

/**
 * A list route of the workspace's objects, newest first, in pages of `?limit&cursor`: its answer is an array of `item`
 * with `meta.page`. The one shape of the plain lists (access keys, projects, webhook endpoints), so each declares only
 * what differs: its names, its access and the service call.
 */
export function listRoute({
  item,
  list,
  description = 'Newest first.',
  ...names
}: {
  operationId: string;
  summary: string;
  /** Default: 'Newest first.' */
  description?: string;
  item: $ZodType;
  access: RouteAccess;
  list: (input: RouteInput<undefined, PageQuery, undefined>) => Promise<Page>;
}): RouteDefinition {
  return defineRoute({
    ...names,
    description,
    response: z.array(item),
    paged: true,
    query: pageQuerySchema(),
    handler: async (input) => listOutput(input.query.limit, await list(input)),
  });
}
