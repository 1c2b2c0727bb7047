import { DEFAULT_ROLE_CLAIM, roleOf } from './role-claim';

describe('roleOf: the admin claim', () => {
  it.each([
    ['a string equal to the value', { roles: 'admin' }, 'admin'],
    ['an array containing it', { roles: ['reader', 'admin'] }, 'admin'],
    ['another string', { roles: 'administrator' }, 'member'],
    ['an array without it', { roles: ['reader'] }, 'member'],
    ['no claim', {}, 'member'],
    ['an object', { roles: { admin: true } }, 'member'],
    ['a number', { roles: 1 }, 'member'],
  ] as const)('%s → %s', (_name, claims, role) => {
    expect(roleOf(claims, DEFAULT_ROLE_CLAIM)).toBe(role);
  });

  it('follows a dotted path into nested claims (Keycloak realm_access.roles)', () => {
    const settings = { adminClaim: 'realm_access.roles', adminValue: 'lore-admin' };
    expect(roleOf({ realm_access: { roles: ['offline_access', 'lore-admin'] } }, settings)).toBe('admin');
    expect(roleOf({ realm_access: { roles: ['offline_access'] } }, settings)).toBe('member');
    expect(roleOf({ realm_access: 'lore-admin' }, settings)).toBe('member');
    expect(roleOf({ roles: ['lore-admin'] }, settings)).toBe('member');
  });

  it('reads only own properties: an inherited name grants nothing', () => {
    expect(roleOf({}, { adminClaim: 'constructor.name', adminValue: 'Object' })).toBe('member');
  });
});
