import { type ReferenceProblem, UnresolvedReferencesError } from './reference-errors.ts';
import { cycleProblems, type Edge, type Graph, oversizeProblem, substitute, tooDeepProblem, type ValueNode } from './reference-graph.ts';
import { MAX_LEVELS, pathOf, type SecretPlace } from './reference-basics.ts';
import { parseValue, type ReferenceTarget, type SyntaxProblem, targetOf } from './reference-parser.ts';

/**
 * The resolver of secret references (decisions.md v1.4, "Secret references"), pure logic over one port that reads
 * targets. It reads level by level, breadth first: the values' own references are level 1, their targets'
 * references level 2, and so on to 5; each level is ONE call of the port, for every root at once (an environment
 * page resolves together) and only for paths not read before. Any target not found or not revealable, a cycle, a
 * 6th level, too many targets or too long a result makes the root's resolution fail with `details`: never a
 * half-resolved value. A value without references reads nothing.
 */

/** Distinct targets one value may reach (decisions.md is silent): 50 references of 50 references each would be 2,500 reads. */
export const DEFAULT_MAX_TARGETS = 100;
/** A resolved value answers at most what a written one may hold (decisions.md, "Secrets"); the AWS API's limit too. */
export const DEFAULT_MAX_RESOLVED_LENGTH = 65_536;

/**
 * What the port answers of one target: its text as written (its own references unresolved) with the caller's record
 * of it (kept for the audit entry), or that it does not exist (or has no text value) or that the caller may not reveal it.
 */
export type TargetRead<T> = { status: 'value'; secret: T; text: string } | { status: 'not_found' } | { status: 'forbidden' };

/**
 * The port: reads these targets in ONE batch, deciding each by the caller's permissions. A path missing from the
 * answer counts as not found.
 */
export type ReadTargets<T> = (targets: readonly ReferenceTarget[]) => Promise<ReadonlyMap<string, TargetRead<T>>>;

/** A value to resolve: the secret it is of, where that secret is (references are relative to it), and its text. */
export interface ReferringValue<T> {
  secret: T;
  place: SecretPlace;
  text: string;
}

/** A target a resolution revealed: what its audit entry names, and `via`, the id of the secret that referenced it first. */
export interface Revealed<T> {
  secret: T;
  path: string;
  via: string;
}

export type Resolution<T> = { ok: true; value: string; revealed: Revealed<T>[] } | { ok: false; problems: ReferenceProblem[] };

export interface ResolveOptions<T> {
  /** Targets already in hand (an environment page's own values): not read again, audited like any target. */
  known?: ReadonlyMap<string, TargetRead<T>>;
  maxTargets?: number;
  maxResolvedLength?: number;
}

type NodeState<T> = { kind: 'value'; node: ValueNode<T> } | { kind: 'broken'; problem: SyntaxProblem } | { kind: 'unreadable' };

/** One root's walk: what it reached (path → who referenced it first, and by which text), in order, and its frontier. */
interface Walk {
  path: string;
  reached: Map<string, { via: string; reference: string }>;
  frontier: string[];
  problems: ReferenceProblem[];
}

/** A read answer as a node of the graph: a value with its references made edges, a value that does not parse, or neither. */
function nodeOf<T extends { id: string }>(read: TargetRead<T> | undefined, place: SecretPlace): NodeState<T> {
  if (read?.status !== 'value') return { kind: 'unreadable' };
  const parsed = parseValue(read.text);
  if (!parsed.ok) return { kind: 'broken', problem: parsed.problem };
  const parts = parsed.segments.map((segment): string | Edge =>
    segment.kind === 'literal' ? segment.text : { reference: segment, target: targetOf(segment, place) },
  );
  return { kind: 'value', node: { secret: read.secret, parts, edges: parts.filter((part) => typeof part !== 'string') } };
}

/** A path `<projectSlug>/<envSlug>/<key>` as a place (slugs hold no `/`; a key may). */
function placeOf(path: string): SecretPlace {
  const [projectSlug = '', envSlug = '', ...key] = path.split('/');
  return { projectSlug, envSlug, key: key.join('/') };
}

/**
 * Moves a walk one level down: the targets first met at `level`, from the references of the values met at the level
 * before. A reference past the last level is `too_deep`, one past the target cap `unresolvable`, neither read.
 */
function advance<T extends { id: string }>(walk: Walk, level: number, nodes: Map<string, NodeState<T>>, maxTargets: number) {
  const next: string[] = [];
  for (const path of walk.frontier) {
    const state = nodes.get(path);
    if (state?.kind !== 'value') continue;
    for (const { reference, target } of state.node.edges) {
      // Met before: a cycle or a shared target, which the checks over the whole graph tell apart.
      if (walk.reached.has(target.path)) continue;
      if (level > MAX_LEVELS) walk.problems.push({ reference: reference.text, reason: 'too_deep' });
      else if (walk.reached.size > maxTargets) walk.problems.push({ reference: reference.text, reason: 'unresolvable' });
      else {
        walk.reached.set(target.path, { via: state.node.secret.id, reference: reference.text });
        next.push(target.path);
      }
    }
  }
  walk.frontier = next;
}

/** The problems of a walk's new frontier once read: a target unread or unreadable, or whose value does not parse. */
function check<T>(walk: Walk, nodes: Map<string, NodeState<T>>) {
  for (const path of walk.frontier) {
    const state = nodes.get(path);
    if (state?.kind === 'broken') walk.problems.push({ reference: state.problem.text, reason: 'unresolvable' });
    else if (state?.kind !== 'value') walk.problems.push({ reference: walk.reached.get(path)!.reference, reason: 'unresolvable' });
  }
}

/** Reads what the walks' frontiers need and no node holds yet, in one call of the port (none when nothing is missing). */
async function readLevel<T extends { id: string }>(walks: readonly Walk[], nodes: Map<string, NodeState<T>>, read: ReadTargets<T>) {
  const missing = [...new Set(walks.flatMap((walk) => walk.frontier))].filter((path) => !nodes.has(path));
  if (missing.length === 0) return;
  const targets = missing.map((path) => ({ ...placeOf(path), path }));
  const answers = await read(targets);
  for (const target of targets) nodes.set(target.path, nodeOf(answers.get(target.path), target));
}

/** Dedupes a walk's problems (one reference may be met by several values) in the order they were found. */
function distinct(problems: readonly ReferenceProblem[]): ReferenceProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.reason}\u0000${problem.reference}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A walk whose every target was read: the checks over its graph, then the value and the targets it revealed. */
function finish<T extends { id: string }>(walk: Walk, graph: Graph<T>, memos: Memos, maxLength: number): Resolution<T> {
  if (walk.problems.length > 0) return { ok: false, problems: distinct(walk.problems) };
  const cycles = cycleProblems(graph, walk.path);
  if (cycles.length > 0) return { ok: false, problems: distinct(cycles) };
  const failed = tooDeepProblem(graph, walk.path, MAX_LEVELS, memos.heights) ?? oversizeProblem(graph, walk.path, maxLength, memos.lengths);
  if (failed) return { ok: false, problems: [failed] };
  const revealed = [...walk.reached]
    .filter(([path]) => path !== walk.path)
    .map(([path, { via }]) => ({ secret: graph.get(path)!.secret, path, via }));
  return { ok: true, value: substitute(graph, walk.path, memos.texts), revealed };
}

interface Memos {
  heights: Map<string, number>;
  lengths: Map<string, number>;
  texts: Map<string, string>;
}

/**
 * Resolves several values together (an environment page, a batch of the AWS API), each level one call of `read` for
 * all of them. Answers each root's value and revealed targets, or its problems; one root's failure is its own.
 */
export async function resolveReferences<T extends { id: string }>(
  roots: readonly ReferringValue<T>[],
  read: ReadTargets<T>,
  options: ResolveOptions<T> = {},
): Promise<Resolution<T>[]> {
  const nodes = new Map<string, NodeState<T>>();
  for (const [path, known] of options.known ?? []) nodes.set(path, nodeOf(known, placeOf(path)));
  for (const root of roots) nodes.set(pathOf(root.place), nodeOf({ status: 'value', secret: root.secret, text: root.text }, root.place));
  const walks = roots.map((root): Walk => {
    const path = pathOf(root.place);
    return { path, reached: new Map([[path, { via: root.secret.id, reference: '' }]]), frontier: [path], problems: [] };
  });
  for (const walk of walks) check(walk, nodes);
  const maxTargets = options.maxTargets ?? DEFAULT_MAX_TARGETS;
  for (let level = 1; level <= MAX_LEVELS + 1; level++) {
    const active = walks.filter((walk) => walk.problems.length === 0 && walk.frontier.length > 0);
    if (active.length === 0) break;
    for (const walk of active) advance(walk, level, nodes, maxTargets);
    // A walk that already failed (too deep, too many targets) reads nothing more.
    const reading = active.filter((walk) => walk.problems.length === 0);
    await readLevel(reading, nodes, read);
    for (const walk of reading) check(walk, nodes);
  }
  const graph = new Map([...nodes].flatMap(([path, state]) => (state.kind === 'value' ? [[path, state.node] as const] : [])));
  const memos: Memos = { heights: new Map(), lengths: new Map(), texts: new Map() };
  return walks.map((walk) => finish(walk, graph, memos, options.maxResolvedLength ?? DEFAULT_MAX_RESOLVED_LENGTH));
}

/** Resolves one value; 409 CONFLICT with `details` (UnresolvedReferencesError) when it cannot be resolved in full. */
export async function resolveReference<T extends { id: string }>(
  root: ReferringValue<T>,
  read: ReadTargets<T>,
  options: ResolveOptions<T> = {},
): Promise<{ value: string; revealed: Revealed<T>[] }> {
  const [resolution] = await resolveReferences([root], read, options);
  if (!resolution!.ok) throw new UnresolvedReferencesError(resolution!.problems);
  return { value: resolution!.value, revealed: resolution!.revealed };
}
