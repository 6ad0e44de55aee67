import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The rules of the README's "Layout and architecture" section, checked on the source itself so that a change that
 * breaks one fails a fast test naming the file. shared/ is one folder per feature over shared/platform/ (and
 * shared/net/); inside a feature, a service uses its store, never the other way; features meet only through their
 * index.ts; nothing imports in a cycle.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const FEATURES = ['access', 'audit', 'aws', 'rotation', 'secrets', 'webhooks', 'workspaces'] as const;

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

/** Edges of the import graph that break a rule, each as `from -> to (rule)`. */
export function brokenRules(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const broken: string[] = [];
  for (const [from, targets] of graph) {
    const a = partOf(from);
    for (const to of targets) {
      const b = partOf(to);
      if (a === undefined || b === undefined || a === b) {
        if (a !== undefined && a === b && /-store\.ts$/.test(from) && /-service\.ts$/.test(to))
          broken.push(`${from} -> ${to} (a store imports a service)`);
        continue;
      }
      if (a === 'platform' && b !== 'platform') broken.push(`${from} -> ${to} (platform imports ${b})`);
      else if (a === 'net' && b !== 'platform') broken.push(`${from} -> ${to} (net imports ${b})`);
      else if ((FEATURES as readonly string[]).includes(b) && a !== 'root' && !to.endsWith(`shared/${b}/index.ts`))
        broken.push(`${from} -> ${to} (past ${b}'s index.ts)`);
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

describe('architecture', () => {
  it('platform imports no feature, net only platform, a store no service, and features meet only through index.ts', () => {
    expect(brokenRules(GRAPH)).toEqual([]);
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
    const isStore = (target: string) =>
      target.startsWith('shared/platform/store/') || /-store\.ts$/.test(target) || target === 'shared/store.ts';
    const offenders = CODE.filter((file) => /^functions\/[^/]+\/routes\.ts$/.test(file) || file.startsWith('shared/platform/http/')).filter(
      (file) => importsOf(file).some(isStore),
    );
    expect(offenders).toEqual([]);
  });

  it('queries name their access pattern: no key condition, index name or key literal outside keys.ts and the query helpers', () => {
    // The API description names its AuditEntry schema after the API's word, not the stored entity type.
    const exempt = new Set([
      'shared/platform/store/keys.ts',
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

  it('each rule fails when broken (the checks themselves)', () => {
    const graph = new Map<string, string[]>([
      ['shared/platform/config.ts', ['shared/access/permissions.ts']],
      ['shared/secrets/secret-service.ts', ['shared/audit/audit-store.ts']],
      ['shared/aws/rotation-operations.ts', ['shared/rotation/rotation-store.ts']],
      ['shared/webhooks/delivery-store.ts', ['shared/webhooks/webhook-service.ts']],
      ['shared/webhooks/webhook-service.ts', ['shared/webhooks/delivery-store.ts', 'shared/audit/index.ts']],
    ]);
    expect(brokenRules(graph)).toEqual([
      'shared/platform/config.ts -> shared/access/permissions.ts (platform imports access)',
      "shared/secrets/secret-service.ts -> shared/audit/audit-store.ts (past audit's index.ts)",
      "shared/aws/rotation-operations.ts -> shared/rotation/rotation-store.ts (past rotation's index.ts)",
      'shared/webhooks/delivery-store.ts -> shared/webhooks/webhook-service.ts (a store imports a service)',
    ]);
    expect(cycles(graph)).toEqual([['shared/webhooks/delivery-store.ts', 'shared/webhooks/webhook-service.ts']]);
  });
});
