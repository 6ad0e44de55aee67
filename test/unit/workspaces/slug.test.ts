import { describe, expect, it } from 'vitest';
import { firstFreeSlug, slugify } from '../../../shared/workspaces/slug.ts';

describe('slugify', () => {
  it.each([
    ['My App', 'my-app'],
    ['  Crème Brûlée!!  ', 'creme-brulee'],
    ['Ünïcödé — Straße', 'unicode-stra-e'],
    ['ＡＢＣ１２３', 'abc123'],
    ['a__b..c', 'a-b-c'],
    ['---x---', 'x'],
    ['İstanbul', 'istanbul'],
  ])('%s → %s', (name, slug) => {
    expect(slugify(name, 'project')).toBe(slug);
  });

  it('falls back when nothing is left', () => {
    expect(slugify('!!!', 'project')).toBe('project');
    expect(slugify('日本語', 'environment')).toBe('environment');
  });

  it('cuts to 64 characters without leaving a trailing dash', () => {
    expect(slugify('a'.repeat(120), 'project')).toBe('a'.repeat(64));
    expect(slugify(`${'a'.repeat(63)} b`, 'project')).toBe('a'.repeat(63));
  });
});

describe('firstFreeSlug', () => {
  it('keeps the base when free and counts from 2 on a clash', () => {
    expect(firstFreeSlug('app', [])).toBe('app');
    expect(firstFreeSlug('app', ['app', 'apple'])).toBe('app-2');
    expect(firstFreeSlug('app', ['app', 'app-2', 'app-4'])).toBe('app-3');
  });
});
