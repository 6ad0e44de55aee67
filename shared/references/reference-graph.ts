import type { ReferenceProblem } from './reference-errors.ts';
import type { ParsedReference, ReferenceTarget } from './reference-parser.ts';

/**
 * The checks and the substitution over a value's references once every target is read (reference-resolver.ts reads
 * them): cycles, chains deeper than the contract's 5 levels, a resolved value too long to answer, then the text.
 * Each works on the graph of read values by path; memos are shared by the roots of one resolution, since what is
 * below a value does not depend on who referenced it.
 */

/** A reference of a read value and the secret it names. */
export interface Edge {
  reference: ParsedReference;
  target: ReferenceTarget;
}

/** A value that was read: the secret it is of (the port's own record), its literal text and its references. */
export interface ValueNode<T> {
  secret: T;
  parts: (string | Edge)[];
  edges: Edge[];
}

export type Graph<T> = ReadonlyMap<string, ValueNode<T>>;

/** A node every reachable path is in (the resolver reads them all before it asks). */
function nodeAt<T>(graph: Graph<T>, path: string): ValueNode<T> {
  const node = graph.get(path);
  if (!node) throw new Error('reference graph: a reachable value was not read');
  return node;
}

/** Every reference that closes a cycle reachable from `root` (depth first, a back edge each). */
export function cycleProblems<T>(graph: Graph<T>, root: string): ReferenceProblem[] {
  const onPath = new Set<string>();
  const done = new Set<string>();
  const problems: ReferenceProblem[] = [];
  const visit = (path: string) => {
    onPath.add(path);
    for (const edge of nodeAt(graph, path).edges) {
      if (onPath.has(edge.target.path)) problems.push({ reference: edge.reference.text, reason: 'cycle' });
      else if (!done.has(edge.target.path)) visit(edge.target.path);
    }
    onPath.delete(path);
    done.add(path);
  };
  visit(root);
  return problems;
}

/** The level of the deepest reference below `path` (0: it has none). Only for graphs without a cycle. */
function heightOf<T>(graph: Graph<T>, path: string, memo: Map<string, number>): number {
  const known = memo.get(path);
  if (known !== undefined) return known;
  let height = 0;
  for (const edge of nodeAt(graph, path).edges) height = Math.max(height, 1 + heightOf(graph, edge.target.path, memo));
  memo.set(path, height);
  return height;
}

/**
 * The reference at level `maxLevels + 1` on the longest chain from `root`, if there is one. The level-by-level read
 * already refuses a reference first met past the limit; this finds one met earlier by a shorter chain (`${A}` and
 * `${B}` both reaching `C`, one through more levels).
 */
export function tooDeepProblem<T>(
  graph: Graph<T>,
  root: string,
  maxLevels: number,
  memo: Map<string, number>,
): ReferenceProblem | undefined {
  if (heightOf(graph, root, memo) <= maxLevels) return undefined;
  let path = root;
  for (let level = 1; ; level++) {
    const edges = nodeAt(graph, path).edges;
    const deepest = edges.find((edge) => 1 + heightOf(graph, edge.target.path, memo) === heightOf(graph, path, memo))!;
    if (level > maxLevels) return { reference: deepest.reference.text, reason: 'too_deep' };
    path = deepest.target.path;
  }
}

/** The length of the value at `path` once resolved (UTF-16 units), without building it. Only for graphs without a cycle. */
function lengthOf<T>(graph: Graph<T>, path: string, memo: Map<string, number>): number {
  const known = memo.get(path);
  if (known !== undefined) return known;
  let length = 0;
  for (const part of nodeAt(graph, path).parts) length += typeof part === 'string' ? part.length : lengthOf(graph, part.target.path, memo);
  memo.set(path, length);
  return length;
}

/**
 * The reference at which the value at `root` passes `maxLength` once resolved, if it does: a few references each
 * repeated 50 times, 5 levels down, would otherwise make a value of terabytes. Counted before anything is built.
 */
export function oversizeProblem<T>(
  graph: Graph<T>,
  root: string,
  maxLength: number,
  memo: Map<string, number>,
): ReferenceProblem | undefined {
  if (lengthOf(graph, root, memo) <= maxLength) return undefined;
  let total = 0;
  let last = '';
  for (const part of nodeAt(graph, root).parts) {
    if (typeof part === 'string') total += part.length;
    else {
      total += lengthOf(graph, part.target.path, memo);
      last = part.reference.text;
    }
    if (total > maxLength && last !== '') return { reference: last, reason: 'unresolvable' };
  }
  return { reference: last, reason: 'unresolvable' };
}

/** The value at `path` with every reference replaced by its target's resolved value (not scanned again). */
export function substitute<T>(graph: Graph<T>, path: string, memo: Map<string, string>): string {
  const known = memo.get(path);
  if (known !== undefined) return known;
  const text = nodeAt(graph, path)
    .parts.map((part) => (typeof part === 'string' ? part : substitute(graph, part.target.path, memo)))
    .join('');
  memo.set(path, text);
  return text;
}
