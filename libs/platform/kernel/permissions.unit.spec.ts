import { covers, isValidPermission, permits, PERMISSION_RESOURCES } from './permissions';

describe('permission vocabulary', () => {
  it.each(PERMISSION_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`, `${r}:*`]))('accepts %s', (permission) => {
    expect(isValidPermission(permission)).toBe(true);
  });

  it('accepts the wildcard *', () => {
    expect(isValidPermission('*')).toBe(true);
  });

  it('covers the resources the API serves', () => {
    expect([...PERMISSION_RESOURCES].sort()).toEqual(['admin', 'api_keys', 'collections', 'connections', 'conversations', 'events', 'memories']);
  });

  it.each([
    '',
    'memories',
    'memories:',
    ':read',
    'memories:delete',
    'memories:read:extra',
    'memory:read',
    'unknown:read',
    '*:read',
    '*:*',
    'MEMORIES:READ',
    ' memories:read',
    'memories:read ',
    'memories:**',
  ])('rejects %j', (permission) => {
    expect(isValidPermission(permission)).toBe(false);
  });
});

describe('permits', () => {
  it("'*' permits every action on every resource", () => {
    for (const resource of PERMISSION_RESOURCES) {
      expect(permits(['*'], resource, 'read')).toBe(true);
      expect(permits(['*'], resource, 'write')).toBe(true);
    }
  });

  it("'x:*' permits read and write on x only", () => {
    expect(permits(['memories:*'], 'memories', 'read')).toBe(true);
    expect(permits(['memories:*'], 'memories', 'write')).toBe(true);
    expect(permits(['memories:*'], 'collections', 'read')).toBe(false);
  });

  it('grants exactly what is listed: write does not imply read, nor read write', () => {
    expect(permits(['memories:write'], 'memories', 'write')).toBe(true);
    expect(permits(['memories:write'], 'memories', 'read')).toBe(false);
    expect(permits(['memories:read'], 'memories', 'read')).toBe(true);
    expect(permits(['memories:read'], 'memories', 'write')).toBe(false);
  });

  it('does not leak across resources', () => {
    expect(permits(['collections:read', 'connections:write'], 'memories', 'read')).toBe(false);
    expect(permits(['collections:read', 'connections:write'], 'connections', 'write')).toBe(true);
  });

  it('permits nothing with an empty list', () => {
    expect(permits([], 'memories', 'read')).toBe(false);
  });
});

describe('covers (may a holder delegate a permission?)', () => {
  it("'*' covers everything, including '*'", () => {
    for (const requested of ['*', 'memories:*', 'memories:read', 'api_keys:write']) expect(covers(['*'], requested)).toBe(true);
  });

  it("nothing but '*' covers '*'", () => {
    expect(covers(PERMISSION_RESOURCES.map((r) => `${r}:*`), '*')).toBe(false);
    expect(covers(['memories:read'], '*')).toBe(false);
  });

  it("'x:*' covers x:read, x:write and x:*", () => {
    expect(covers(['memories:*'], 'memories:read')).toBe(true);
    expect(covers(['memories:*'], 'memories:write')).toBe(true);
    expect(covers(['memories:*'], 'memories:*')).toBe(true);
  });

  it("'x:*' does not cover another resource", () => {
    expect(covers(['memories:*'], 'collections:read')).toBe(false);
    expect(covers(['memories:*'], 'collections:*')).toBe(false);
  });

  it("'x:read' covers x:read only: not x:write, not x:*", () => {
    expect(covers(['memories:read'], 'memories:read')).toBe(true);
    expect(covers(['memories:read'], 'memories:write')).toBe(false);
    expect(covers(['memories:read'], 'memories:*')).toBe(false);
  });

  it("'x:write' does not cover x:read", () => {
    expect(covers(['memories:write'], 'memories:read')).toBe(false);
  });

  it('covers nothing with an empty list', () => {
    expect(covers([], 'memories:read')).toBe(false);
    expect(covers([], '*')).toBe(false);
  });
});
