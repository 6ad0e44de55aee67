import { monotonicFactory, decodeTime, encodeTime } from 'ulid';

/** Every identifier prefix of decisions.md. */
export const ID_PREFIXES = {
  workspace: 'ws',
  project: 'proj',
  environment: 'env',
  secret: 'sec',
  audit: 'aud',
  user: 'usr',
  machineIdentity: 'mid',
  accessKey: 'ak',
  apiKey: 'key',
  webhookEndpoint: 'we',
  delivery: 'whd',
  event: 'evt',
  request: 'req',
  account: 'acc',
  changeRequest: 'cr',
  sync: 'sync',
  auditStream: 'as',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';

/**
 * Random bytes from the platform's CSPRNG (Web Crypto's `getRandomValues`), drawn 1 KB at a time and each used once,
 * as Node's own randomUUID keeps a buffer of them. ulid's default generator asks for one byte per character: 16
 * calls into the CSPRNG for each id made in a new millisecond, measured at 0.054 ms of a reveal's CPU (two ids).
 */
const pool = new Uint8Array(1024);
let drawn = pool.length;
function randomByte(): number {
  if (drawn === pool.length) {
    crypto.getRandomValues(pool);
    drawn = 0;
  }
  return pool[drawn++]!;
}

/** Made on the first id: a bundle that makes no such id (the API description's) then leaves out ulid's node:crypto. */
let nextUlid: ReturnType<typeof monotonicFactory> | undefined;

/** Makes `<prefix>_<ULID>`; ids sort by creation time. `now` lets callers with an injected clock stay consistent. */
export function newId(kind: IdKind, now: number = Date.now()): string {
  // A byte over 256, as ulid's own generator gives it: each character then takes a byte's top five bits, uniform.
  nextUlid ??= monotonicFactory(() => randomByte() / 256);
  return `${ID_PREFIXES[kind]}_${nextUlid(now)}`;
}

const CROCKFORD_BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A request's id, `req_<ULID>`: the request's time and 80 random bits from the platform's CSPRNG, as every other id
 * (a request id names the request in its answer and its logs, and must not be guessable from another). It takes
 * the bits from Web Crypto's global `getRandomValues` (through the pool above), rather than from ulid's monotonic
 * factory, whose node:crypto import was a quarter of the API description function's cold start (that function makes
 * no other id); nothing sorts request ids within a millisecond, so they need no monotonic counter.
 */
export function newRequestId(now: number = Date.now()): string {
  // 256 is a multiple of 32, so each byte's low five bits are uniform.
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD_BASE32[randomByte() & 31];
  return `${ID_PREFIXES.request}_${encodeTime(now, 10)}${random}`;
}

/** One compiled pattern per kind: ids are checked on every request (route params, prefetch, authentication). */
const ID_PATTERNS = Object.fromEntries(
  Object.entries(ID_PREFIXES).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}_${ULID_PATTERN}$`)]),
) as Record<IdKind, RegExp>;

/** True when `value` is a well-formed id of that kind. */
export function isId(kind: IdKind, value: string): boolean {
  return ID_PATTERNS[kind].test(value);
}

/** The creation time (ms) encoded in an id's ULID. */
export function idTime(id: string): number {
  return decodeTime(id.slice(id.indexOf('_') + 1));
}

/** The smallest ULID of a millisecond: lets a time range become a sort-key range. */
export function ulidFloor(ms: number): string {
  return encodeTime(Math.max(0, Math.floor(ms)), 10) + '0'.repeat(16);
}

/** The largest ULID of a millisecond. */
export function ulidCeil(ms: number): string {
  return encodeTime(Math.max(0, Math.floor(ms)), 10) + 'Z'.repeat(16);
}
