import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The rules of the README's "Layout and architecture" section, checked on the source itself so that a change that
 * breaks one fails a fast test naming the file.
 */
const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

const CODE = ['shared', 'functions', 'lib', 'bin'].flatMap(sourceFiles);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Relative imports of a file, as project paths. */
function importsOf(file: string): string[] {
  return [...read(file).matchAll(/from '(\.[^']+)'/g)].map((m) => normalize(join(dirname(file), m[1]!)));
}

/** functions → services → domain → store → clients: a file may import its own layer or one below it. */
function layerOf(file: string): number | undefined {
  if (file.startsWith('functions/')) return 4;
  if (file.startsWith('shared/services/')) return 3;
  if (/^shared\/(webhooks|crypto|auth|http)\//.test(file) || file === 'shared/audit-entry.ts') return 2;
  if (file.startsWith('shared/store/')) return 1;
  if (file.startsWith('shared/clients/')) return 0;
  return undefined;
}

describe('architecture', () => {
  it('imports run one way: no layer imports a layer above it', () => {
    // Prepare: the store may name the sealed-value shape of crypto (`import type`: a type, no code)
    const typeOnly = (edge: string) => /^shared\/store\/[^ ]+ -> shared\/crypto\/envelope\.ts$/.test(edge) && /import type \{[^}]*SealedValue[^}]*\} from '\.\.\/crypto\/envelope\.ts'/.test(read(edge.split(' ')[0]!));
    // Act
    const upward = CODE.flatMap((file) =>
      importsOf(file)
        .filter((target) => (layerOf(file) ?? Infinity) < (layerOf(target) ?? -1))
        .map((target) => `${file} -> ${target}`),
    ).filter((edge) => !typeOnly(edge));
    // Assess
    expect(upward).toEqual([]);
  });

  it('only the data layer helpers build transactions or test for a failed condition', () => {
    const raw = CODE.filter((file) => file !== 'shared/store/conditional.ts' && /TransactWriteCommand\b|ConditionalCheckFailedException/.test(read(file)));
    expect(raw).toEqual([]);
  });

  it('no route module imports the store, and shared/http names no store type', () => {
    const offenders = CODE.filter((file) => /^functions\/[^/]+\/routes\.ts$/.test(file) || file.startsWith('shared/http/')).filter((file) =>
      importsOf(file).some((target) => target.startsWith('shared/store/')),
    );
    expect(offenders).toEqual([]);
  });

  it('queries name their access pattern: no key condition, index name or key literal outside keys.ts and the query helpers', () => {
    // The API description names its AuditEntry schema after the API's word, not the stored entity type.
    const exempt = new Set(['shared/store/keys.ts', 'shared/store/table.ts', 'shared/store/query.ts', 'bin/openapi/document.ts']);
    const literal = /KeyConditionExpression|IndexName: '|'#PURGE'|'AuditEntry'/;
    expect(CODE.filter((file) => !exempt.has(file) && literal.test(read(file)))).toEqual([]);
  });

  it('no source file passes 300 lines (the SDK sources included, less its generated API types)', () => {
    const sdk = sourceFiles('sdk/src').filter((file) => file !== 'sdk/src/api.ts');
    const long = [...CODE, ...sdk].map((file) => ({ file, lines: read(file).split('\n').length - 1 })).filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });
});
