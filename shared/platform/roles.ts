/*
 * The names of people's roles, apart from what each role may do (permissions.ts): the configuration checks
 * JWT_DEFAULT_ROLE against them at cold start without compiling any policy.
 */

/** The roles a person's access token can carry, weakest first. */
export const ROLES = ['viewer', 'developer', 'admin'] as const;
export type Role = (typeof ROLES)[number];
