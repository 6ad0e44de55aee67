import { isIP } from 'node:net';
import * as z from 'zod/mini';
import { POLICY_ACTIONS } from './access-policy.ts';
import { once } from '../platform/http/once.ts';
import { maxUnits, minUnits } from '../platform/http/schemas.ts';

/**
 * The request and answer shapes of an access key's `permissions` and `allowedCidrs` (decisions.md, "Permissions of
 * access keys"). What the rules mean is shared/access/access-policy.ts's alone; these only check their form.
 */

/** How many rules a key may have, patterns a list may hold, and CIDRs a key may name. */
export const MAX_RULES = 50;
export const MAX_PATTERNS = 20;
export const MAX_ALLOWED_CIDRS = 20;

/** 1 to 20 patterns of 1 to 256 characters. */
const patternList = (pattern: z.ZodMiniString<string>) => z.array(pattern).check(z.minLength(1), z.maxLength(MAX_PATTERNS));

/** A project or environment pattern: slug characters, `*` and `?`. */
const slugPattern = once(() =>
  z.string().check(minUnits(1), maxUnits(256), z.regex(/^[a-z0-9*?-]*$/, 'may contain only a-z, 0-9, "-", "*" and "?"')),
);
const keyPattern = once(() => z.string().check(minUnits(1), maxUnits(256)));

export const permissionRuleSchema = once(() =>
  z.strictObject({
    effect: z.optional(z.enum(['allow', 'deny'])),
    projects: z.optional(patternList(slugPattern())),
    environments: z.optional(patternList(slugPattern())),
    keys: z.optional(patternList(keyPattern())),
    actions: z.array(z.enum(POLICY_ACTIONS)).check(
      z.minLength(1),
      z.maxLength(POLICY_ACTIONS.length),
      z.refine((actions) => new Set(actions).size === actions.length, { error: 'must not repeat an action' }),
    ),
  }),
);

/** 1 to 50 rules. */
export const permissionsSchema = once(() => z.array(permissionRuleSchema()).check(z.minLength(1), z.maxLength(MAX_RULES)));

/**
 * A CIDR a key may name: an IPv4 or IPv6 address (no zone id) and a decimal prefix length within its bits, without
 * leading zeros.
 */
export function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 1 || slash !== text.lastIndexOf('/') || text.includes('%')) return false;
  const family = isIP(text.slice(0, slash));
  const prefix = text.slice(slash + 1);
  return family !== 0 && /^(?:0|[1-9]\d{0,2})$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** 0 to 20 IPv4 or IPv6 CIDRs. */
export const allowedCidrsSchema = once(() =>
  z
    .array(
      z.string().check(maxUnits(64), z.refine(isCidr, { error: 'must be an IPv4 or IPv6 CIDR such as 203.0.113.0/24 or 2001:db8::/32' })),
    )
    .check(z.maxLength(MAX_ALLOWED_CIDRS)),
);

/** A rule as every answer shows it: the defaults filled in. */
export const permissionRuleAnswer = once(() =>
  z.object({
    effect: z.enum(['allow', 'deny']),
    projects: z.array(z.string()),
    environments: z.array(z.string()),
    keys: z.array(z.string()),
    actions: z.array(z.enum(POLICY_ACTIONS)),
  }),
);
