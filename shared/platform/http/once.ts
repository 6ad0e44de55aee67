/**
 * A value built on its first use, then the same value every time. Route schemas are built this way: constructing
 * zod schemas was the largest part of an API function's cold start, and a cold container usually serves one route.
 */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
