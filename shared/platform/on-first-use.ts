/**
 * A promise that `load` makes on the first call, then the same promise for every call, concurrent ones included; a
 * load that fails is made again by the next call, so one failure (a throttled read, a busy disk) is not kept for the
 * container's life.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

/** The methods of T that answer a promise: what a stand-in can forward once their implementation has loaded. */
type AsyncMethods<T> = { [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof T];

/**
 * A stand-in for an object of async methods that `load` makes on the first call of any of them (loadOnce). `load` is
 * where a dynamic `import()` goes: the Lambda bundles put what it imports in a chunk of its own (lib/lambda-bundle.ts),
 * which a cold start does not read, so code that only some routes use costs the others nothing. The first call pays
 * the import, once per container.
 */
export function onFirstUse<T extends object, K extends AsyncMethods<T> & string>(
  methods: readonly K[],
  load: () => Promise<T>,
): Pick<T, K> {
  const loaded = loadOnce(load);
  const stand = {} as Record<K, unknown>;
  for (const name of methods) {
    stand[name] = async (...args: unknown[]) => {
      const target = await loaded();
      return (target[name] as (...args: unknown[]) => Promise<unknown>).apply(target, args);
    };
  }
  return stand as Pick<T, K>;
}
