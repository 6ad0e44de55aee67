import { systemClock, type Clock } from '../clock.ts';

/** Bounds of the decrypted data key cache. */
export interface DataKeyCacheOptions {
  /** Most keys held at once; the least recently used goes first. @default 1000 */
  maxEntries?: number;
  /** How long a key may be served after it was unwrapped, however often it is used. @default 300_000 (5 minutes) */
  ttlMs?: number;
  clock?: Clock;
}

/** Plaintext data keys by cache key; the cache owns the buffers it holds and zeroes each one it lets go. */
export interface DataKeyCache {
  get(key: string): Buffer | undefined;
  set(key: string, dataKey: Buffer): void;
  readonly size: number;
}

/**
 * A small LRU-ish cache over a Map (whose iteration order is insertion order): a hit is re-inserted at the end, and
 * the first entry is the one evicted. Expiry is fixed at insertion, so a key in constant use is still re-fetched
 * from KMS every `ttlMs` (a revoked grant takes effect within that time).
 */
export function makeDataKeyCache(options: DataKeyCacheOptions = {}): DataKeyCache {
  const maxEntries = options.maxEntries ?? 1000;
  const ttlMs = options.ttlMs ?? 300_000;
  const clock = options.clock ?? systemClock;
  const entries = new Map<string, { dataKey: Buffer; expiresAt: number }>();
  const drop = (key: string): void => {
    entries.get(key)?.dataKey.fill(0);
    entries.delete(key);
  };
  return {
    get(key: string): Buffer | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (clock.now() >= entry.expiresAt) {
        drop(key);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return entry.dataKey;
    },
    set(key: string, dataKey: Buffer): void {
      if (entries.get(key)?.dataKey !== dataKey) drop(key);
      entries.set(key, { dataKey, expiresAt: clock.now() + ttlMs });
      while (entries.size > maxEntries) drop(entries.keys().next().value!);
    },
    get size(): number {
      return entries.size;
    },
  };
}
