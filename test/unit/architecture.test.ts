import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The rules of the README's "Layout and architecture" section, checked on the source itself so that a change that
 * breaks one fails a fast test naming the file. shared/ is one folder per feature (every folder but platform/ and
 * net/, the lower layers, read from the disk) and no loose file; inside a feature, a service uses its store, never
 * the other way; a feature, a function group and bin/ reach a feature only through its public modules (its index.ts
 * and the entry modules that index.ts declares); lib/ takes only platform/ of shared/; nothing in shared/ imports
 * upward; nothing imports in a cycle.
 */
const ROOT = join(import.meta.dirname, '..', '..');
/** shared/'s lower layers: what every feature, function and script may import, and which import no feature. */
const LOWER = new Set(['platform', 'net']);
/** How many entry modules a feature may declare besides its index.ts: a few, each with its reason, or index.ts is no front. */
const MAX_ENTRIES = 3;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

const CODE = ['shared', 'functions', 'lib', 'bin'].flatMap(sourceFiles);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Relative imports of a file (static, dynamic and type-only), as project paths. */
export function importsOf(file: string, text = read(file)): string[] {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => normalize(join(dirname(file), m[1]!)));
}

/** The part of shared/ a file is in: a feature, `platform`, `net`, or `root` for shared/'s loose files. */
export function partOf(file: string): string | undefined {
  const m = /^shared\/(?:([^/]+)\/)?[^/]+$|^shared\/([^/]+)\//.exec(file);
  if (!m) return undefined;
  return m[2] ?? m[1] ?? 'root';
}

/** The entry modules an index.ts declares besides itself, one `@entry <file> <why>` line each in its comment. */
export function entriesOf(indexText: string): string[] {
  return [...indexText.matchAll(/^\s*\*\s*@entry\s+([\w./-]+\.ts)\b/gm)].map((m) => m[1]!);
}

/** Each feature of shared/ (its folders, less the lower layers) and the entry modules its index.ts declares. */
function declaredEntries(): Map<string, string[]> {
  const features = readdirSync(join(ROOT, 'shared'), { withFileTypes: true }).filter((e) => e.isDirectory() && !LOWER.has(e.name));
  return new Map(
    features.map(({ name }) => [name, CODE.includes(`shared/${name}/index.ts`) ? entriesOf(read(`shared/${name}/index.ts`)) : []]),
  );
}

type Entries = ReadonlyMap<string, readonly string[]>;

/** Why `to` is not one of shared/'s public modules (a lower layer's, a feature's index.ts or entry), or undefined. */
function notPublic(to: string, entries: Entries): string | undefined {
  const part = partOf(to);
  if (part === undefined || LOWER.has(part)) return undefined;
  if (part === 'root') return "a loose file of shared/'s root";
  const name = to.slice(`shared/${part}/`.length);
  return name === 'index.ts' || entries.get(part)?.includes(name) ? undefined : `past ${part}'s index.ts`;
}

/** Why an import from shared/ breaks a rule, or undefined. */
function sharedBreak(from: string, to: string, entries: Entries): string | undefined {
  if (!to.startsWith('shared/')) return `shared/ imports ${to.split('/')[0]}/`;
  const [a, b] = [partOf(from)!, partOf(to)!];
  if (a === b) {
    if (/-store\.ts$/.test(from) && /-service\.ts$/.test(to)) return 'a store imports a service';
    if (from.startsWith('shared/platform/store/') && to.startsWith('shared/platform/http/'))
      return 'the store layer imports the http layer';
    return undefined;
  }
  if (a === 'platform') return `platform imports ${b}`;
  if (a === 'net' && b !== 'platform') return `net imports ${b}`;
  // A loose file is reported once, as a file; a feature's import of it is not another fault.
  return b === 'root' ? undefined : notPublic(to, entries);
}

/** Why an import from functions/, bin/ or lib/ breaks a rule, or undefined. */
function outerBreak(from: string, to: string, entries: Entries): string | undefined {
  const [area, group] = from.split('/') as [string, string];
  const target = to.split('/')[0]!;
  if (area === 'lib')
    return target === 'lib' || to.startsWith('shared/platform/') ? undefined : `lib/ imports ${target}/ beyond shared/platform/`;
  if (target === 'shared') return notPublic(to, entries);
  if (area === 'functions') {
    if (target !== 'functions') return `functions/ imports ${target}/`;
    return to.split('/')[1] === group ? undefined : `imports function group ${to.split('/')[1]}`;
  }
  if (target === 'functions')
    return /^functions\/[^/]+\/(handler|routes)\.ts$/.test(to) ? undefined : "past a function group's handler.ts and routes.ts";
  return target === 'bin' || target === 'lib' ? undefined : `bin/ imports ${target}/`;
}

/** Declared entry modules that do not exist, or too many of them. */
function entryBreaks(entries: Entries, files: ReadonlySet<string>): string[] {
  return [...entries].flatMap(([feature, names]) => [
    ...(names.length > MAX_ENTRIES ? [`shared/${feature}/index.ts (declares ${names.length} entry modules, at most ${MAX_ENTRIES})`] : []),
    ...names
      .filter((name) => !files.has(`shared/${feature}/${name}`))
      .map((name) => `shared/${feature}/index.ts (declares ${name}, not a file of it)`),
  ]);
}

/** What breaks a rule, each as `from -> to (rule)` or `file (rule)`. */
export function brokenRules(graph: ReadonlyMap<string, readonly string[]>, entries: Entries): string[] {
  const broken = entryBreaks(entries, new Set(graph.keys()));
  for (const [from, targets] of graph) {
    if (partOf(from) === 'root') broken.push(`${from} (a loose file at shared/'s root)`);
    for (const to of targets) {
      const why = from.startsWith('shared/') ? sharedBreak(from, to, entries) : outerBreak(from, to, entries);
      if (why !== undefined) broken.push(`${from} -> ${to} (${why})`);
    }
  }
  return broken;
}

/** Every import cycle (strongly connected component of more than one file, or a file importing itself). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) !== order.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return found;
}

const GRAPH = new Map(CODE.map((file) => [file, importsOf(file)]));
const BROKEN = brokenRules(GRAPH, declaredEntries());
const brokenIn = (area: string) => BROKEN.filter((line) => line.startsWith(`${area}/`));

describe('architecture', () => {
  it('shared/: features and no loose file; platform imports no feature, net only platform, platform/store not platform/http', () => {
    // Also: a store imports no service, a feature reaches another only through its public modules, nothing goes upward.
    expect(brokenIn('shared')).toEqual([]);
  });

  it("functions/: a group imports its own files, the lower layers and features' public modules, never another group", () => {
    expect(brokenIn('functions')).toEqual([]);
  });

  it("bin/: imports lib/, function groups' handler.ts and routes.ts, the lower layers and features' public modules", () => {
    expect(brokenIn('bin')).toEqual([]);
  });

  it('lib/: the constructs import shared/platform/ and nothing else of the project', () => {
    expect(brokenIn('lib')).toEqual([]);
  });

  it('nothing imports in a cycle', () => {
    expect(cycles(GRAPH)).toEqual([]);
  });

  it('only the data layer helpers build transactions or test for a failed condition', () => {
    const raw = CODE.filter(
      (file) =>
        file !== 'shared/platform/store/conditional.ts' && /TransactWriteCommand\b|ConditionalCheckFailedException/.test(read(file)),
    );
    expect(raw).toEqual([]);
  });

  it('no route module imports a store, and platform/http names no store type', () => {
    const isStore = (target: string) => target.startsWith('shared/platform/store/') || /-store\.ts$/.test(target);
    const offenders = CODE.filter((file) => /^functions\/[^/]+\/routes\.ts$/.test(file) || file.startsWith('shared/platform/http/')).filter(
      (file) => importsOf(file).some(isStore),
    );
    expect(offenders).toEqual([]);
  });

  it('queries name their access pattern: no key condition, index name or key literal outside keys.ts and the query helpers', () => {
    // The API description names its AuditEntry schema after the API's word, not the stored entity type.
    const exempt = new Set([
      'shared/platform/store/keys.ts',
      'shared/platform/store/entities.ts',
      'shared/platform/store/table.ts',
      'shared/platform/store/query.ts',
      'bin/openapi/document.ts',
    ]);
    const literal = /KeyConditionExpression|IndexName: '|'#PURGE'|'AuditEntry'/;
    expect(CODE.filter((file) => !exempt.has(file) && literal.test(read(file)))).toEqual([]);
  });

  it('no source file passes 300 lines (the SDK sources included, less its generated API types)', () => {
    const sdk = sourceFiles('sdk/src').filter((file) => file !== 'sdk/src/api.ts');
    const long = [...CODE, ...sdk].map((file) => ({ file, lines: read(file).split('\n').length - 1 })).filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });

  it('reads the entry modules an index.ts declares', () => {
    expect(entriesOf('/**\n * Why.\n * @entry rotation-cron.ts croner, kept out\n * @entry a/b-c.ts\n */\nexport {};')).toEqual([
      'rotation-cron.ts',
      'a/b-c.ts',
    ]);
    expect(declaredEntries().get('rotation')).toContain('rotation-schedules.ts');
  });

  it('each rule fails when broken (the checks themselves)', () => {
    const entries = new Map([
      ['rotation', ['rotation-cron.ts', 'gone.ts']],
      ['secrets', ['a.ts', 'b.ts', 'c.ts', 'd.ts']],
    ]);
    const graph = new Map<string, string[]>([
      ['shared/rotation/rotation-cron.ts', []],
      ['shared/platform/config.ts', ['shared/access/permissions.ts', 'shared/platform/ids.ts']],
      ['shared/platform/store/conditional.ts', ['shared/platform/http/idempotency-scope.ts', 'shared/platform/idempotency-scope.ts']],
      ['shared/net/ssrf.ts', ['shared/webhooks/sender.ts', 'shared/platform/errors.ts']],
      ['shared/aws/sigv4.ts', ['sdk/src/node-sha256.ts', 'shared/rotation/rotation-cron.ts']],
      ['shared/secrets/secret-service.ts', ['shared/audit/audit-store.ts', 'shared/audit/index.ts', 'shared/secrets/secret-store.ts']],
      ['shared/webhooks/delivery-store.ts', ['shared/webhooks/webhook-service.ts', 'functions/webhooks/handler.ts']],
      ['shared/api-runtime.ts', ['shared/access/authenticate.ts', 'shared/platform/runtime.ts']],
      ['functions/secrets/handler.ts', ['shared/secrets/secret-wiring.ts', 'shared/api-runtime.ts', 'shared/secrets/index.ts']],
      [
        'functions/rotation/handler.ts',
        ['functions/secrets/routes.ts', 'bin/local/sts.ts', 'shared/net/ssrf.ts', 'functions/rotation/x.ts'],
      ],
      ['bin/local/rotation.ts', ['functions/rotation/handler.ts', 'functions/aws/more-operations.ts', 'shared/rotation/rotation-store.ts']],
      ['bin/openapi/document.ts', ['functions/secrets/routes.ts', 'lib/api.ts', 'sdk/src/node-sha256.ts', 'shared/platform/routes.ts']],
      ['lib/api.ts', ['shared/platform/routes.ts', 'shared/rotation/index.ts', 'bin/console-build.ts', 'lib/nag.ts']],
    ]);
    expect(brokenRules(graph, entries)).toEqual([
      'shared/rotation/index.ts (declares gone.ts, not a file of it)',
      'shared/secrets/index.ts (declares 4 entry modules, at most 3)',
      ...['a', 'b', 'c', 'd'].map((name) => `shared/secrets/index.ts (declares ${name}.ts, not a file of it)`),
      'shared/platform/config.ts -> shared/access/permissions.ts (platform imports access)',
      'shared/platform/store/conditional.ts -> shared/platform/http/idempotency-scope.ts (the store layer imports the http layer)',
      'shared/net/ssrf.ts -> shared/webhooks/sender.ts (net imports webhooks)',
      'shared/aws/sigv4.ts -> sdk/src/node-sha256.ts (shared/ imports sdk/)',
      "shared/secrets/secret-service.ts -> shared/audit/audit-store.ts (past audit's index.ts)",
      'shared/webhooks/delivery-store.ts -> shared/webhooks/webhook-service.ts (a store imports a service)',
      'shared/webhooks/delivery-store.ts -> functions/webhooks/handler.ts (shared/ imports functions/)',
      "shared/api-runtime.ts (a loose file at shared/'s root)",
      "shared/api-runtime.ts -> shared/access/authenticate.ts (past access's index.ts)",
      "functions/secrets/handler.ts -> shared/secrets/secret-wiring.ts (past secrets's index.ts)",
      "functions/secrets/handler.ts -> shared/api-runtime.ts (a loose file of shared/'s root)",
      'functions/rotation/handler.ts -> functions/secrets/routes.ts (imports function group secrets)',
      'functions/rotation/handler.ts -> bin/local/sts.ts (functions/ imports bin/)',
      "bin/local/rotation.ts -> functions/aws/more-operations.ts (past a function group's handler.ts and routes.ts)",
      "bin/local/rotation.ts -> shared/rotation/rotation-store.ts (past rotation's index.ts)",
      'bin/openapi/document.ts -> sdk/src/node-sha256.ts (bin/ imports sdk/)',
      'lib/api.ts -> shared/rotation/index.ts (lib/ imports shared/ beyond shared/platform/)',
      'lib/api.ts -> bin/console-build.ts (lib/ imports bin/ beyond shared/platform/)',
    ]);
    const cyclic = new Map([...graph, ['shared/webhooks/webhook-service.ts', ['shared/webhooks/delivery-store.ts']]]);
    expect(cycles(cyclic)).toEqual([['shared/webhooks/delivery-store.ts', 'shared/webhooks/webhook-service.ts']]);
  });
});
