/** The static permission model of managementportal.md §4. */
import { describe, expect, it } from 'vitest';
import { AUTHORITIES, mayBeGranted, narrowScopes, PERMISSION_SCOPES, ROLES } from '../../../src/management/authz/permissions.js';

const perms = (authority: string) => [...ROLES.get(authority as never)!.permissions].sort();

describe('permissions', () => {
  it('has the 40 scopes and the 8 roles', () => {
    expect(PERMISSION_SCOPES).toHaveLength(40);
    expect(new Set(PERMISSION_SCOPES).size).toBe(40);
    expect(AUTHORITIES).toEqual([
      'ROLE_SYS_ADMIN', 'ROLE_ORGANIZATION_ADMIN', 'ROLE_PROJECT_ADMIN', 'ROLE_PROJECT_OWNER',
      'ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ANALYST', 'ROLE_PARTICIPANT', 'ROLE_INACTIVE_PARTICIPANT',
    ]);
  });

  it('grants each role what radar-auth grants it', () => {
    expect(perms('ROLE_SYS_ADMIN')).toHaveLength(40);
    expect(perms('ROLE_PARTICIPANT')).toEqual(['MEASUREMENT.CREATE', 'MEASUREMENT.READ', 'SUBJECT.READ', 'SUBJECT.UPDATE']);
    expect(perms('ROLE_INACTIVE_PARTICIPANT')).toEqual([]);
    const orgAdmin = perms('ROLE_ORGANIZATION_ADMIN');
    expect(orgAdmin).not.toContain('ORGANIZATION.CREATE');
    expect(orgAdmin).not.toContain('MEASUREMENT.READ');
    expect(orgAdmin).toContain('ORGANIZATION.UPDATE');
    expect(orgAdmin).toHaveLength(40 - 3 - 4);
    const projectAdmin = perms('ROLE_PROJECT_ADMIN');
    expect(projectAdmin).not.toContain('PROJECT.CREATE');
    expect(projectAdmin).not.toContain('ORGANIZATION.UPDATE');
    expect(projectAdmin).toEqual(expect.arrayContaining(['ORGANIZATION.READ', 'MEASUREMENT.CREATE', 'OAUTHCLIENTS.DELETE', 'USER.CREATE']));
    expect(perms('ROLE_PROJECT_OWNER')).toEqual(projectAdmin.filter((s) => !s.startsWith('USER.')));
    const affiliate = perms('ROLE_PROJECT_AFFILIATE');
    expect(affiliate).not.toContain('SUBJECT.DELETE');
    expect(affiliate).not.toContain('PROJECT.UPDATE');
    expect(affiliate).toContain('SUBJECT.CREATE');
    const analyst = perms('ROLE_PROJECT_ANALYST');
    expect(analyst.filter((s) => !s.endsWith('.READ'))).toEqual(['SUBJECT.UPDATE']);
    expect(analyst).not.toContain('USER.READ');
  });

  it('narrows scopes to what the roles may be granted, sorted when anything was removed', () => {
    const client = ['MEASUREMENT.CREATE', 'SUBJECT.UPDATE', 'SUBJECT.READ', 'PROJECT.READ', 'SOURCETYPE.READ'];
    expect(narrowScopes(client, ['ROLE_PARTICIPANT'])).toEqual(['MEASUREMENT.CREATE', 'SUBJECT.READ', 'SUBJECT.UPDATE']);
    expect(narrowScopes(client, ['ROLE_SYS_ADMIN'])).toEqual(client);
    expect(narrowScopes(['UBJECT.UPDATE', 'SUBJECT.READ'], ['ROLE_SYS_ADMIN'])).toEqual(['SUBJECT.READ']);
    expect(narrowScopes(client, [])).toEqual([]);
    expect(mayBeGranted(['ROLE_UNKNOWN'], 'SUBJECT.READ')).toBe(false);
  });
});
