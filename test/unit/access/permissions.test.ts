import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PERMISSION_TABLE_FILES, withPermissionTable } from '../../../bin/permission-table.ts';
import { API_KEY_AUTHORITY, machineAuthority, mayCall, roleAuthority, roleFromClaims } from '../../../shared/access/permissions.ts';
import { fromAllowedAddress } from '../../../shared/access/source-address.ts';
import { isCidr } from '../../../shared/access/permission-schemas.ts';

describe('roles of people', () => {
  it('takes the strongest recognised role from a string or an array, else the default', () => {
    expect(roleFromClaims({ roles: 'developer' }, 'roles', 'viewer')).toBe('developer');
    expect(roleFromClaims({ roles: ['viewer', 'admin', 'developer'] }, 'roles', 'viewer')).toBe('admin');
    expect(roleFromClaims({ roles: ['owner', 42, 'viewer'] }, 'roles', 'developer')).toBe('viewer');
    expect(roleFromClaims({ roles: ['owner'] }, 'roles', 'developer')).toBe('developer');
    expect(roleFromClaims({ groups: 'admin' }, 'roles', 'viewer')).toBe('viewer');
    expect(roleFromClaims({ groups: 'admin' }, 'groups', 'viewer')).toBe('admin');
    expect(roleFromClaims({ roles: 'Admin' }, 'roles', 'viewer')).toBe('viewer');
    expect(roleFromClaims({ roles: { admin: true } }, 'roles', 'viewer')).toBe('viewer');
  });

  it('lets only admins and API keys administer; a viewer reads, a developer also reveals, writes and deletes', () => {
    const anywhere = (role: 'viewer' | 'developer' | 'admin', action: 'read' | 'reveal' | 'write' | 'delete') =>
      roleAuthority(role).policy.allows(action, { project: 'p', environment: 'e', key: 'K' });
    expect(mayCall(roleAuthority('admin'), 'admin')).toBe(true);
    expect(mayCall(API_KEY_AUTHORITY, 'admin')).toBe(true);
    expect(mayCall(roleAuthority('developer'), 'admin')).toBe(false);
    expect(mayCall(roleAuthority('viewer'), 'admin')).toBe(false);
    expect(mayCall(machineAuthority(undefined), 'admin')).toBe(false);
    expect(mayCall(roleAuthority('viewer'), 'workspace')).toBe(true);
    expect(['read', 'reveal', 'write', 'delete'].map((a) => anywhere('viewer', a as 'read'))).toEqual([true, false, false, false]);
    expect(['read', 'reveal', 'write', 'delete'].map((a) => anywhere('developer', a as 'read'))).toEqual([true, true, true, true]);
  });
});

describe('machine tokens', () => {
  it('compiles a rule set once per container and digest, from the gzipped text; a token without rules has the defaults', () => {
    const rules = gzipSync(JSON.stringify([{ effect: 'allow', projects: ['api'], environments: ['*'], keys: ['**'], actions: ['read'] }]));
    const policy = machineAuthority(rules, 'digest-1').policy;
    expect(machineAuthority(gzipSync('not even json'), 'digest-1').policy).toBe(policy);
    expect(policy.allows('read', { project: 'api', environment: 'dev', key: 'K' })).toBe(true);
    expect(policy.allows('reveal', { project: 'api', environment: 'dev', key: 'K' })).toBe(false);
    expect(policy.allows('read', { project: 'web', environment: 'dev', key: 'K' })).toBe(false);
    expect(machineAuthority().policy.seesEverything).toBe(true);
  });
});

describe('allowed networks', () => {
  it('accepts IPv4 and IPv6 CIDRs with a prefix in range and no leading zero, and nothing else', () => {
    for (const good of ['10.0.0.0/8', '0.0.0.0/0', '203.0.113.7/32', '2001:db8::/32', '::/0', '::1/128', '::ffff:10.0.0.0/104'])
      expect(isCidr(good), good).toBe(true);
    for (const bad of [
      '10.0.0.0',
      '10.0.0.0/33',
      '10.0.0.0/08',
      '10.0.0/8',
      '2001:db8::/129',
      'fe80::1%eth0/64',
      'example.com/24',
      '/8',
      '10.0.0.0/8/8',
      ' 10.0.0.0/8',
      '10.0.0.0/-1',
    ]) {
      expect(isCidr(bad), bad).toBe(false);
    }
  });

  it('matches the source address against each network; IPv4-mapped addresses as IPv4; no list is anywhere', () => {
    const office = ['203.0.113.0/24', '2001:db8:42::/48'];
    expect(fromAllowedAddress('203.0.113.9', office)).toBe(true);
    expect(fromAllowedAddress('::ffff:203.0.113.9', office)).toBe(true);
    expect(fromAllowedAddress('2001:db8:42:1::5', office)).toBe(true);
    expect(fromAllowedAddress('203.0.114.9', office)).toBe(false);
    expect(fromAllowedAddress('2001:db8:43::5', office)).toBe(false);
    expect(fromAllowedAddress(undefined, office)).toBe(false);
    expect(fromAllowedAddress('not an address', office)).toBe(false);
    expect(fromAllowedAddress('198.51.100.1', [])).toBe(true);
    expect(fromAllowedAddress(undefined, null)).toBe(true);
  });
});

describe('the permission table', () => {
  it.each(PERMISSION_TABLE_FILES)('%s shows the table printed from the decision module: run `npm run docs:permissions`', (file) => {
    const text = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');
    expect(text).toBe(withPermissionTable(text));
  });
});
