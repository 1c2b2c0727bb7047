import { AppError } from '@lore/platform/kernel';
import { authorize } from './access';
import type { Caller, Permission } from '@lore/platform/http';

const user = (over: Partial<Extract<Caller, { kind: 'user' }>> = {}): Caller => ({
  kind: 'user',
  userId: 'u1',
  role: 'member',
  defaultWorkspace: 'ws-home',
  workspaces: new Set(['ws-home', 'ws-team']),
  ...over,
});

const apiKey = (over: Partial<Extract<Caller, { kind: 'api_key' }>> = {}): Caller => ({
  kind: 'api_key',
  keyId: 'key1',
  workspaceId: 'ws-key',
  createdBy: 'user:u1',
  actsForOthers: false,
  permissions: ['memories:read'],
  ipWhitelist: [],
  collections: [],
  ...over,
});

const request = (over: Partial<Parameters<typeof authorize>[1]> = {}): Parameters<typeof authorize>[1] => ({
  workspaceHeader: undefined,
  clientIp: '10.1.2.3',
  permission: null,
  requestId: 'req-1',
  ...over,
});

function forbidden(call: () => unknown, message?: RegExp): void {
  let error: unknown;
  try {
    call();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('forbidden');
  if (message) expect((error as AppError).message).toMatch(message);
}

const readMemories: Permission = ['memories', 'read'];
const writeMemories: Permission = ['memories', 'write'];

describe('authorize', () => {
  describe('a JWT user', () => {
    it("acts in the token's workspace_id when no X-Workspace-Id is sent", () => {
      const caller = user();
      expect(authorize(caller, request())).toEqual({ caller, workspaceId: 'ws-home', actor: 'user:u1', requestId: 'req-1' });
    });

    it('acts in another allowed workspace named by X-Workspace-Id', () => {
      expect(authorize(user(), request({ workspaceHeader: 'ws-team' })).workspaceId).toBe('ws-team');
    });

    it('trims the header, and treats a blank one as absent', () => {
      expect(authorize(user(), request({ workspaceHeader: '  ws-team ' })).workspaceId).toBe('ws-team');
      expect(authorize(user(), request({ workspaceHeader: '' })).workspaceId).toBe('ws-home');
      expect(authorize(user(), request({ workspaceHeader: '   ' })).workspaceId).toBe('ws-home');
    });

    it('is forbidden in a workspace the token does not list', () => {
      forbidden(() => authorize(user(), request({ workspaceHeader: 'ws-other' })), /ws-other/);
    });

    it('matches workspace ids exactly (no case folding, no prefix)', () => {
      forbidden(() => authorize(user(), request({ workspaceHeader: 'WS-HOME' })));
      forbidden(() => authorize(user(), request({ workspaceHeader: 'ws-home2' })));
    });

    it('is forbidden without a header when the token has no default workspace', () => {
      forbidden(() => authorize(user({ defaultWorkspace: undefined, workspaces: new Set(['ws-team']) }), request()), /X-Workspace-Id/);
    });

    it('may use a listed workspace with no default workspace', () => {
      const caller = user({ defaultWorkspace: undefined, workspaces: new Set(['ws-team']) });
      expect(authorize(caller, request({ workspaceHeader: 'ws-team' })).workspaceId).toBe('ws-team');
    });

    it('may do everything in its workspace and is not bound to an IP allow-list', () => {
      expect(authorize(user(), request({ permission: writeMemories, clientIp: '203.0.113.7' })).workspaceId).toBe('ws-home');
      expect(authorize(user(), request({ permission: ['api_keys', 'write'] })).workspaceId).toBe('ws-home');
    });
  });

  describe('an API key', () => {
    it('acts in its own workspace when no header is sent', () => {
      const caller = apiKey();
      expect(authorize(caller, request())).toEqual({ caller, workspaceId: 'ws-key', actor: 'api_key:key1', requestId: 'req-1' });
    });

    it('accepts a header naming its own workspace', () => {
      expect(authorize(apiKey(), request({ workspaceHeader: 'ws-key' })).workspaceId).toBe('ws-key');
      expect(authorize(apiKey(), request({ workspaceHeader: ' ws-key ' })).workspaceId).toBe('ws-key');
    });

    it('is forbidden in any other workspace', () => {
      forbidden(() => authorize(apiKey(), request({ workspaceHeader: 'ws-home' })), /another workspace/);
    });

    describe('IP allow-list', () => {
      it('allows any address when the list is empty', () => {
        expect(authorize(apiKey({ ipWhitelist: [] }), request({ clientIp: '198.51.100.1' })).workspaceId).toBe('ws-key');
      });

      it('allows a listed address or range', () => {
        expect(authorize(apiKey({ ipWhitelist: ['10.1.2.3'] }), request({ clientIp: '10.1.2.3' })).workspaceId).toBe('ws-key');
        expect(authorize(apiKey({ ipWhitelist: ['10.0.0.0/8'] }), request({ clientIp: '10.200.0.1' })).workspaceId).toBe('ws-key');
        expect(authorize(apiKey({ ipWhitelist: ['2001:db8::/32'] }), request({ clientIp: '2001:db8::5' })).workspaceId).toBe('ws-key');
      });

      it('allows an IPv4-mapped IPv6 client address against an IPv4 rule (dual-stack sockets)', () => {
        expect(authorize(apiKey({ ipWhitelist: ['10.0.0.0/8'] }), request({ clientIp: '::ffff:10.1.2.3' })).workspaceId).toBe('ws-key');
      });

      it('is forbidden from an address outside the list', () => {
        forbidden(() => authorize(apiKey({ ipWhitelist: ['10.0.0.0/8'] }), request({ clientIp: '192.168.1.1' })), /IP address/);
      });

      it('is forbidden when the client address cannot be read', () => {
        forbidden(() => authorize(apiKey({ ipWhitelist: ['10.0.0.0/8'] }), request({ clientIp: '' })));
      });

      it('applies even to requests that need no permission', () => {
        forbidden(() => authorize(apiKey({ ipWhitelist: ['10.0.0.1'] }), request({ clientIp: '10.0.0.2', permission: null })));
      });
    });

    describe('permissions', () => {
      it('allows an action the key lists', () => {
        expect(authorize(apiKey({ permissions: ['memories:read'] }), request({ permission: readMemories })).actor).toBe('api_key:key1');
      });

      it('is forbidden for an action it does not list, naming the permission', () => {
        forbidden(() => authorize(apiKey({ permissions: ['memories:read'] }), request({ permission: writeMemories })), /memories:write/);
        forbidden(() => authorize(apiKey({ permissions: ['memories:write'] }), request({ permission: readMemories })), /memories:read/);
        forbidden(() => authorize(apiKey({ permissions: ['collections:*'] }), request({ permission: readMemories })));
        forbidden(() => authorize(apiKey({ permissions: [] }), request({ permission: readMemories })));
      });

      it("allows through 'resource:*' and '*'", () => {
        expect(authorize(apiKey({ permissions: ['memories:*'] }), request({ permission: writeMemories })).workspaceId).toBe('ws-key');
        expect(authorize(apiKey({ permissions: ['*'] }), request({ permission: ['api_keys', 'write'] })).workspaceId).toBe('ws-key');
      });

      it('checks nothing when the route needs no permission', () => {
        expect(authorize(apiKey({ permissions: [] }), request({ permission: null })).workspaceId).toBe('ws-key');
      });

      it('does not let a permission override the workspace or IP checks', () => {
        forbidden(() => authorize(apiKey({ permissions: ['*'] }), request({ workspaceHeader: 'ws-home', permission: readMemories })));
        forbidden(() => authorize(apiKey({ permissions: ['*'], ipWhitelist: ['10.0.0.1'] }), request({ clientIp: '10.0.0.2', permission: readMemories })));
      });
    });
  });

  describe('admin permissions (operator routes)', () => {
    const readAdmin: Permission = ['admin', 'read'];
    const writeAdmin: Permission = ['admin', 'write'];

    it('are refused to a member JWT, naming why', () => {
      forbidden(() => authorize(user(), request({ permission: readAdmin })), /admin:read is for workspace administrators/);
      expect(authorize(user(), request({ permission: readMemories })).actor).toBe('user:u1');
    });

    it('are allowed to an administrator JWT', () => {
      expect(authorize(user({ role: 'admin' }), request({ permission: writeAdmin })).workspaceId).toBe('ws-home');
    });

    it("are refused to a member's key even with '*' or 'admin:*'", () => {
      forbidden(() => authorize(apiKey({ permissions: ['*'] }), request({ permission: readAdmin })), /workspace administrators/);
      forbidden(() => authorize(apiKey({ permissions: ['admin:*'] }), request({ permission: writeAdmin })));
    });

    it('are allowed to a key an administrator minted, when it holds the permission', () => {
      expect(authorize(apiKey({ actsForOthers: true, permissions: ['*'] }), request({ permission: readAdmin })).actor).toBe('api_key:key1');
      forbidden(() => authorize(apiKey({ actsForOthers: true, permissions: ['memories:*'] }), request({ permission: readAdmin })), /lacks the permission admin:read/);
    });
  });

  it('records who acted: user:<sub> or api_key:<key id>', () => {
    expect(authorize(user({ userId: 'auth0|abc' }), request()).actor).toBe('user:auth0|abc');
    expect(authorize(apiKey({ keyId: 'key_01j' }), request()).actor).toBe('api_key:key_01j');
  });
});
