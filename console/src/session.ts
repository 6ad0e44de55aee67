import type { ConsoleConfig } from './config.ts';

/**
 * The signed-in person's token: in memory and in `sessionStorage` only (decisions.md, "Console"), never in
 * `localStorage`, a cookie or a URL. Sign-out clears both.
 */
const TOKEN_KEY = 'secrets-console.token';

export type Role = 'viewer' | 'developer' | 'admin' | 'machine';

let current: string | null = null;

export function storedToken(): string | null {
  current ??= sessionStorage.getItem(TOKEN_KEY);
  return current;
}

export function signIn(token: string): void {
  current = token;
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function signOut(): void {
  current = null;
  sessionStorage.removeItem(TOKEN_KEY);
  // The sign-in with the identity provider keeps its own state under this prefix.
  for (const key of Object.keys(sessionStorage)) if (key.startsWith('secrets-console.')) sessionStorage.removeItem(key);
}

const STRENGTH: Role[] = ['viewer', 'developer', 'admin'];

/**
 * What the console offers a token, read from the token itself: an API key is admin, a machine token is `machine`,
 * a person's JWT has the role its claim names (the strongest recognised, else the stack's default). Only for what
 * the console offers: the API decides every request, and a FORBIDDEN is shown as it comes.
 */
export function roleOf(token: string, config: Pick<ConsoleConfig, 'roleClaim' | 'defaultRole'>): Role {
  if (token.startsWith('sk_live_')) return 'admin';
  if (token.startsWith('st_')) return 'machine';
  const payload = token.split('.')[1];
  if (!payload) return config.defaultRole;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    const claim = claims[config.roleClaim];
    const named = (Array.isArray(claim) ? claim : [claim]).filter((value): value is Role => STRENGTH.includes(value as Role));
    return named.sort((a, b) => STRENGTH.indexOf(b) - STRENGTH.indexOf(a))[0] ?? config.defaultRole;
  } catch {
    return config.defaultRole;
  }
}

/** What a role may do, as decisions.md gives it: the controls the console offers. */
export function may(role: Role, action: 'reveal' | 'write' | 'admin'): boolean {
  if (action === 'admin') return role === 'admin';
  return role !== 'viewer';
}
