import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatRule, parseRuleSpec, readPermissionsFile, RuleSpecError } from '../../../sdk/src/cli-rules.ts';

/** The error a spec is refused with, or undefined when it parses. */
function refusal(spec: string): Error | undefined {
  try {
    parseRuleSpec(spec, 'allow');
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

describe('the rule spec of `secrets access-keys … --allow / --deny`', () => {
  it('parses every field, in any order, with the effect of its option', () => {
    // Act
    const allow = parseRuleSpec('projects=api,web;environments=staging;keys=DB_*,db/**;actions=read,reveal', 'allow');
    const deny = parseRuleSpec('actions=write;keys=ROOT_?', 'deny');
    // Assess
    expect(allow).toEqual({
      effect: 'allow',
      projects: ['api', 'web'],
      environments: ['staging'],
      keys: ['DB_*', 'db/**'],
      actions: ['read', 'reveal'],
    });
    expect(deny).toEqual({ effect: 'deny', keys: ['ROOT_?'], actions: ['write'] });
  });

  it('leaves a field that is not given to the API default, and trims spaces around parts and values', () => {
    // Act
    const rule = parseRuleSpec(' actions = read , delete ; projects=api ', 'allow');
    // Assess: no environments or keys key at all (the API fills in ["*"] and ["**"])
    expect(rule).toEqual({ effect: 'allow', projects: ['api'], actions: ['read', 'delete'] });
    expect(Object.keys(rule)).not.toContain('environments');
  });

  it('keeps every character of a pattern but the separators, including = after the first one', () => {
    // Act
    const rule = parseRuleSpec('keys=A=B,x?y;actions=read', 'allow');
    // Assess
    expect(rule.keys).toEqual(['A=B', 'x?y']);
  });

  it.each([
    ['', /^empty rule: actions is required/],
    ['projects=api', /^actions is required/],
    ['projects=api;environments=prod;keys=*', /^actions is required/],
    ['project=api;actions=read', /^unknown field "project" \(fields: projects, environments, keys, actions\)$/],
    ['effect=deny;actions=read', /^unknown field "effect"/],
    ['=api;actions=read', /^unknown field ""/],
    ['projects;actions=read', /^"projects": expected field=value,value… \(fields: /],
    ['projects=;actions=read', /^projects: empty value$/],
    ['projects=api,;actions=read', /^projects: empty value$/],
    ['environments=,prod;actions=read', /^environments: empty value$/],
    ['keys= ;actions=read', /^keys: empty value$/],
    ['actions=', /^actions: empty value$/],
    ['actions=read;;projects=api', /^empty part/],
    ['actions=read;', /^empty part/],
    ['projects=a;projects=b;actions=read', /^projects given twice$/],
    ['actions=read,admin', /^actions: unknown action "admin" \(actions: read, reveal, write, delete\)$/],
    ['actions=READ', /^actions: unknown action "READ"/],
    ['actions=read,write,read', /^actions: "read" given twice$/],
  ])('refuses %j, naming the problem', (spec, message) => {
    // Act
    const error = refusal(spec);
    // Assess
    expect(error).toBeInstanceOf(RuleSpecError);
    expect(error?.message).toMatch(message);
  });

  it('prints an answered rule in the shorthand, which parses back to the same rule', () => {
    // Prepare
    const answered = {
      effect: 'deny' as const,
      projects: ['api', 'w*'],
      environments: ['*'],
      keys: ['**'],
      actions: ['read' as const, 'write' as const],
    };
    // Act
    const line = formatRule(answered);
    // Assess
    expect(line).toBe('deny projects=api,w*;environments=*;keys=**;actions=read,write');
    expect(parseRuleSpec(line.slice('deny '.length), 'deny')).toEqual(answered);
  });
});

describe('the --permissions file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sdk-cli-admin-'));
  const file = (name: string, text: string) => {
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };

  it('answers the JSON array of rules as written (the API checks each rule)', () => {
    // Prepare
    const rules = [{ effect: 'allow', projects: ['api'], actions: ['read'] }, { actions: ['reveal'] }];
    // Act
    const read = readPermissionsFile(file('rules.json', JSON.stringify(rules)));
    // Assess
    expect(read).toEqual(rules);
  });

  it.each([
    ['not-json.json', '[{"actions": ["read"]', /^.*not-json\.json: /],
    ['object.json', '{"permissions": [{"actions": ["read"]}]}', /object\.json: expected a JSON array of rules/],
    ['strings.json', '["actions=read"]', /strings\.json: expected a JSON array of rules/],
    ['nested.json', '[[{"actions": ["read"]}]]', /nested\.json: expected a JSON array of rules/],
  ])('refuses %s, naming the file', (name, text, message) => {
    // Prepare
    const path = file(name, text);
    // Act
    const read = () => readPermissionsFile(path);
    // Assess
    expect(read).toThrow(RuleSpecError);
    expect(read).toThrow(message);
  });

  it('refuses a file that cannot be read, naming it', () => {
    // Act
    const read = () => readPermissionsFile(join(folder, 'missing.json'));
    // Assess
    expect(read).toThrow(/missing\.json: ENOENT/);
  });
});
