import { AppError } from '@lore/platform/kernel';
import { actingOwner, holdsPermission, keyCollections, mayUseResource } from './acting-owner';
import type { Caller, RequestScope } from './http-route';

const jwt = (role: 'admin' | 'member'): Caller => ({ kind: 'user', userId: 'alice', role, defaultWorkspace: 'ws', workspaces: new Set(['ws']) });
const key = (actsForOthers: boolean): Caller => ({
  kind: 'api_key',
  keyId: 'key_1',
  workspaceId: 'ws',
  createdBy: 'alice',
  actsForOthers,
  permissions: ['*'],
  ipWhitelist: [],
  collections: [],
});
const scope = (caller: Caller): RequestScope => ({ caller, workspaceId: 'ws', actor: 'someone', requestId: 'r1' });

/** What the rule answers: the user acted for, or the error code. */
function outcome(caller: Caller, named: string | null | undefined, keyMustName = false): string {
  try {
    return actingOwner(scope(caller), named, { keyMustName }).userId;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

describe('actingOwner: who may act for whom', () => {
  // caller kind × user named: none, itself (alice, the sub or the key's creator), another member (bob)
  const table: ReadonlyArray<readonly [string, Caller, string, string, string]> = [
    ['member JWT', jwt('member'), 'alice', 'alice', 'forbidden'],
    ['administrator JWT', jwt('admin'), 'alice', 'alice', 'bob'],
    ['key minted by an administrator', key(true), 'alice', 'alice', 'bob'],
    ['key minted by a member', key(false), 'alice', 'alice', 'forbidden'],
  ];

  it.each(table)('%s: none → %s, itself → %s, another user → %s', (_name, caller, none, itself, other) => {
    expect(outcome(caller, undefined)).toBe(none);
    expect(outcome(caller, null)).toBe(none);
    expect(outcome(caller, 'alice')).toBe(itself);
    expect(outcome(caller, 'bob')).toBe(other);
  });

  it('says why it refuses, for a JWT and for a key', () => {
    expect(() => actingOwner(scope(jwt('member')), 'bob')).toThrow(/only a workspace administrator may act for another user/);
    expect(() => actingOwner(scope(key(false)), 'bob')).toThrow(/acts only for the user who created it/);
  });

  it('carries the workspace and actor of the request', () => {
    expect(actingOwner(scope(key(true)), 'bob')).toEqual({ workspaceId: 'ws', actor: 'someone', userId: 'bob' });
  });

  it('asks an API key to name the owner where the API requires one (422 at the user_id the route takes), never a JWT', () => {
    let error: unknown;
    try {
      actingOwner(scope(key(true)), undefined, { keyMustName: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'validation', issues: [{ loc: ['message', 'userId'], type: 'missing' }] });
    expect(outcome(key(true), undefined)).toBe('alice');
    expect(outcome(jwt('member'), undefined, true)).toBe('alice');
    // A member's key naming another user is refused for ownership, not for a missing field.
    expect(outcome(key(false), 'bob', true)).toBe('forbidden');
  });

  it("carries an API key's collection bound when asked (null: every collection, as for a JWT)", () => {
    const bounded: Caller = { ...(key(true) as Extract<Caller, { kind: 'api_key' }>), collections: ['col_a'] };
    expect(actingOwner(scope(bounded), 'bob', { collections: true })).toEqual({ workspaceId: 'ws', actor: 'someone', userId: 'bob', collections: ['col_a'] });
    expect(actingOwner(scope(key(true)), undefined, { collections: true }).collections).toBeNull();
    expect(keyCollections(jwt('admin'))).toBeNull();
  });
});

describe('holdsPermission', () => {
  it('a JWT user holds every permission in its workspaces; a key only what it was granted', () => {
    const reader: Caller = { ...(key(false) as Extract<Caller, { kind: 'api_key' }>), permissions: ['memories:read'] };
    expect(holdsPermission(jwt('member'), 'collections', 'read')).toBe(true);
    expect(holdsPermission(reader, 'memories', 'read')).toBe(true);
    expect(holdsPermission(reader, 'collections', 'read')).toBe(false);
  });
});

describe('mayUseResource: admin resources take administrator rights', () => {
  it.each([
    ['member JWT', jwt('member'), false],
    ['administrator JWT', jwt('admin'), true],
    ['key minted by an administrator', key(true), true],
    ['key minted by a member (even with *)', key(false), false],
  ] as const)('%s → admin: %s, other resources always', (_name, caller, admin) => {
    expect(mayUseResource(caller, 'admin')).toBe(admin);
    expect(mayUseResource(caller, 'memories')).toBe(true);
  });
});
