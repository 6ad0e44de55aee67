/**
 * One composition of a function's stores: each feature's store factories answer a few named methods, and a Lambda
 * function's composition module puts together the ones its services ask for. Object spread would let a second
 * factory silently replace a method of the first; here a name that two parts define fails the type check (the error
 * names it under `defined twice`).
 */
type Duplicates<Parts extends readonly object[], Seen extends PropertyKey = never> = Parts extends readonly [
  infer Head extends object,
  ...infer Rest extends readonly object[],
]
  ? (keyof Head & Seen) | Duplicates<Rest, Seen | keyof Head>
  : never;

type Merged<Parts extends readonly object[]> = Parts extends readonly [infer Head, ...infer Rest extends readonly object[]]
  ? Head & Merged<Rest>
  : unknown;

type Disjoint<Parts extends readonly object[]> = [Duplicates<Parts>] extends [never]
  ? unknown
  : { readonly 'defined twice': Duplicates<Parts> };

/**
 * The union of store parts whose method names are all distinct: a clash is a type error (no check at run time, which
 * every function would carry and pay at cold start for what tsc already refuses).
 */
export function composeStores<const Parts extends readonly object[]>(...parts: Parts & Disjoint<Parts>): Merged<Parts> {
  return Object.assign({}, ...(parts as readonly object[])) as Merged<Parts>;
}
