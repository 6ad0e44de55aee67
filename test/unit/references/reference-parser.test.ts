import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/platform/errors.ts';
import { ReferenceSyntaxError, type ParsedValue } from '../../../shared/references/index.ts';
import {
  assertReferencesParse,
  MAX_REFERENCE_LENGTH,
  parseValue,
  referenceTargets,
  targetOf,
} from '../../../shared/references/reference-resolving.ts';

/** The segments of a value that parses, as `literal` strings and `{ref}` objects (scope and parts). */
function segmentsOf(value: string) {
  const parsed = parseValue(value);
  if (!parsed.ok) throw new Error(`expected ${JSON.stringify(value)} to parse: ${parsed.problem.rule}`);
  return parsed.segments.map((segment) =>
    segment.kind === 'literal'
      ? segment.text
      : { scope: segment.scope, projectSlug: segment.projectSlug, envSlug: segment.envSlug, key: segment.key, text: segment.text },
  );
}

/** The rule a value's first bad reference breaks (throws when it parses). */
function ruleOf(value: string): string {
  const parsed: ParsedValue = parseValue(value);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(value)} not to parse`);
  return parsed.problem.rule;
}

const SLUG_64 = 'a'.repeat(64);
const KEY_256 = 'K'.repeat(256);

describe('parseValue: the three forms', () => {
  it('reads ${KEY} as a key of the same environment', () => {
    // Prepare
    const value = 'user=${DB_USER}';
    // Act
    const segments = segmentsOf(value);
    // Assess
    expect(segments).toEqual(['user=', { scope: 'environment', key: 'DB_USER', text: 'DB_USER' }]);
  });

  it('reads ${env.KEY} as another environment of the same project', () => {
    // Act
    const segments = segmentsOf('${shared.DB_HOST}');
    // Assess
    expect(segments).toEqual([{ scope: 'project', envSlug: 'shared', key: 'DB_HOST', text: 'shared.DB_HOST' }]);
  });

  it('reads ${project.env.KEY} by slugs, the key keeping every further dot and its slashes', () => {
    // Act
    const plain = segmentsOf('${core-api.prod.DB_HOST}');
    const dotted = segmentsOf('${core-api.prod.db.host/v2.primary}');
    // Assess
    expect(plain).toEqual([
      { scope: 'workspace', projectSlug: 'core-api', envSlug: 'prod', key: 'DB_HOST', text: 'core-api.prod.DB_HOST' },
    ]);
    expect(dotted[0]).toMatchObject({ scope: 'workspace', projectSlug: 'core-api', envSlug: 'prod', key: 'db.host/v2.primary' });
  });

  it('splits a value mixing literals and the three forms, with each reference where its ${ starts', () => {
    // Prepare
    const value = 'postgres://${DB_USER}:${DB_PASSWORD}@${shared.DB_HOST}/app?x=${core.prod.OPT}';
    // Act
    const parsed = parseValue(value);
    // Assess
    expect(parsed.ok && parsed.references.map((ref) => [ref.text, ref.offset])).toEqual([
      ['DB_USER', 11],
      ['DB_PASSWORD', 22],
      ['shared.DB_HOST', 37],
      ['core.prod.OPT', 61],
    ]);
    expect(segmentsOf(value).filter((segment) => typeof segment === 'string')).toEqual(['postgres://', ':', '@', '/app?x=']);
  });

  it('answers a value without ${ as one literal, "$", "$$" and braces included, and the empty value as nothing', () => {
    // Act
    const plain = segmentsOf('a$b $$ {x} }$');
    const empty = segmentsOf('');
    // Assess
    expect(plain).toEqual(['a$b $$ {x} }$']);
    expect(empty).toEqual([]);
  });
});

describe('parseValue: the $${ escape', () => {
  it('turns $${ into a literal ${ that is no reference', () => {
    // Act
    const parsed = parseValue('echo $${HOME} and ${KEY}');
    // Assess
    expect(parsed.ok && parsed.segments).toEqual([
      { kind: 'literal', text: 'echo ${HOME} and ' },
      expect.objectContaining({ kind: 'reference', key: 'KEY' }),
    ]);
  });

  it('reads left to right: $$${X} is "$" then an escaped "${", and $${${A}} an escape then a reference', () => {
    // Act
    const triple = segmentsOf('$$${X}');
    const mixed = segmentsOf('$${${A}}');
    // Assess
    expect(triple).toEqual(['$${X}']);
    expect(mixed).toEqual(['${', { scope: 'environment', key: 'A', text: 'A' }, '}']);
  });

  it('needs no closing brace after an escape', () => {
    // Act
    const segments = segmentsOf('a $${ b');
    // Assess
    expect(segments).toEqual(['a ${ b']);
  });
});

describe('parseValue: limits and one past each', () => {
  it('takes the longest reference the key and slug rules allow (64 + 64 + 256 characters)', () => {
    // Act
    const segments = segmentsOf(`\${${SLUG_64}.${SLUG_64}.${KEY_256}}`);
    // Assess
    expect(segments).toEqual([
      { scope: 'workspace', projectSlug: SLUG_64, envSlug: SLUG_64, key: KEY_256, text: `${SLUG_64}.${SLUG_64}.${KEY_256}` },
    ]);
  });

  it('refuses a slug of 65 characters and a key of 257', () => {
    // Act
    const project = ruleOf(`\${${SLUG_64}a.prod.KEY}`);
    const environment = ruleOf(`\${${SLUG_64}a.KEY}`);
    const key = ruleOf(`\${${KEY_256}K}`);
    // Assess
    expect(project).toMatch(/^names a project slug that is not 1 to 64/);
    expect(environment).toMatch(/^names an? environment slug that is not 1 to 64/);
    expect(key).toMatch(/^names a key that is not 1 to 256/);
  });

  it('judges a reference of 600 characters by its parts, and refuses one of 601 for its length', () => {
    // Prepare
    const inner600 = `p.e.${'K'.repeat(MAX_REFERENCE_LENGTH - 4)}`;
    // Act
    const at600 = parseValue(`\${${inner600}}`);
    const at601 = parseValue(`\${${inner600}K}`);
    // Assess
    expect(!at600.ok && at600.problem).toMatchObject({ rule: expect.stringMatching(/^names a key/), text: inner600 });
    expect(!at601.ok && at601.problem).toMatchObject({ rule: 'is longer than 600 characters', offset: 0 });
    expect(!at601.ok && at601.problem.text).toHaveLength(600);
  });

  it('takes 50 references in a value and refuses the 51st, escapes not counted', () => {
    // Prepare
    const fifty = Array.from({ length: 50 }, (_, i) => `\${K${i}}`).join('-');
    // Act
    const atFifty = parseValue(`$\${x} ${fifty} $\${y}`);
    const atFiftyOne = parseValue(`${fifty}-\${K50}`);
    // Assess
    expect(atFifty.ok && atFifty.references).toHaveLength(50);
    expect(!atFiftyOne.ok && atFiftyOne.problem).toMatchObject({
      rule: 'is past the 50 a value may hold',
      offset: fifty.length + 1,
      text: 'K50',
    });
  });
});

describe('parseValue: what does not parse', () => {
  it.each([
    ['an empty reference', 'x${}', /^is empty$/],
    ['no closing brace', 'x${KEY', /^is not closed by "}"$/],
    ['a space', '${DB USER}', /^names a key/],
    ['a nested reference (it ends at the first "}")', '${a${b}}', /^names a key/],
    ['an upper-case environment slug', '${Prod.KEY}', /^names an? environment slug/],
    ['an empty environment slug', '${p..KEY}', /^names an? environment slug/],
    ['an empty project slug', '${.prod.KEY}', /^names a project slug/],
    ['a slug with a leading "-"', '${-p.prod.KEY}', /^names a project slug/],
    ['a slug with "--"', '${a--b.KEY}', /^names an? environment slug/],
    ['an empty key', '${prod.}', /^names a key/],
    ['a key with a leading "/"', '${/a}', /^names a key/],
    ['a key with a trailing "/"', '${a/}', /^names a key/],
    ['a key with "//"', '${a//b}', /^names a key/],
    ['a shell default', '${PORT:-80}', /^names a key/],
  ])('refuses %s', (_name, value, rule) => {
    // Act
    const refused = ruleOf(value);
    // Assess
    expect(refused).toMatch(rule);
  });

  it('answers the first bad reference, after good ones', () => {
    // Act
    const parsed = parseValue('${A} ${b c} ${}');
    // Assess
    expect(!parsed.ok && parsed.problem).toMatchObject({ offset: 5, text: 'b c' });
  });
});

describe('assertReferencesParse: the write check', () => {
  it('is VALIDATION_ERROR naming the field, the character and the rule, never the text', () => {
    // Act
    const refused = (() => {
      try {
        assertReferencesParse('pw=${hunter2 secret}', 'SecretString');
      } catch (error) {
        return error;
      }
    })();
    // Assess
    expect(refused).toBeInstanceOf(ReferenceSyntaxError);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect((refused as Error).message).toMatch(/^SecretString: the reference at character 4 names a key that is not/);
    expect((refused as Error).message).not.toContain('hunter2');
  });

  it('names `value` by default and answers the references of a value that parses, a target that does not exist included', () => {
    // Act
    const references = assertReferencesParse('${NOT_YET_WRITTEN}');
    // Assess
    expect(references.map((ref) => ref.key)).toEqual(['NOT_YET_WRITTEN']);
    expect(() => assertReferencesParse('${')).toThrow(/^value: the reference at character 1 is not closed/);
  });
});

describe('targets', () => {
  it('resolves each form relative to the referencing secret', () => {
    // Prepare
    const from = { projectSlug: 'api', envSlug: 'dev', key: 'URL' };
    const references = assertReferencesParse('${A}${prod.B}${core.shared.C.D}');
    // Act
    const paths = references.map((ref) => targetOf(ref, from).path);
    // Assess
    expect(paths).toEqual(['api/dev/A', 'api/prod/B', 'core/shared/C.D']);
  });

  it("lists a value's distinct targets by path in order, for the `references` field and the reverse index", () => {
    // Act
    const paths = referenceTargets('${B}${A}${B}${dev.A}', { projectSlug: 'api', envSlug: 'dev', key: 'URL' });
    // Assess
    expect(paths).toEqual(['api/dev/B', 'api/dev/A']);
  });
});
