import type { AsyncLocalStorage } from 'node:async_hooks';

/** What a request-scoped store offers: run work with a value, and read the value of the work running now. */
export interface RequestStorage<T> {
  run<R>(value: T, work: () => R): R;
  getStore(): T | undefined;
}

/**
 * An AsyncLocalStorage made on its first `run`. Until then `getStore` answers undefined without loading Node's
 * async-context internals: about 0.4 ms of a cold start (issue 52), which a function whose requests never enter one
 * (a REST function's reads: no AWS interface, no Idempotency-Key) does without. Node's builtin is taken with
 * `process.getBuiltinModule`, because an ESM import of node:async_hooks loads those internals at once.
 */
export function storageOnFirstRun<T>(): RequestStorage<T> {
  let storage: AsyncLocalStorage<T> | undefined;
  return {
    run(value, work) {
      storage ??= new (process.getBuiltinModule('node:async_hooks').AsyncLocalStorage)<T>();
      return storage.run(value, work);
    },
    getStore: () => storage?.getStore(),
  };
}
