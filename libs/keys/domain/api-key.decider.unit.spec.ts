import { deciderSpec, recordedEvent } from '@lore/platform/testing';
import { apiKeyDecider, type ApiKeyCommand, type ApiKeyRequest, type ApiKeyState } from './api-key.decider';
import type { ApiKeyCreatedData, ApiKeyEvent } from './api-key.events';
import { upcastApiKeyEvent } from './api-key.upcasters';

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-02T00:00:00.000Z';
const T2 = '2025-01-03T00:00:00.000Z';

const key = (over: Partial<ApiKeyCreatedData> = {}): ApiKeyCreatedData => ({
  keyId: 'key_1',
  workspaceId: 'ws_1',
  label: 'ci',
  status: 'active',
  expiresAt: null,
  permissions: ['memories:read'],
  ipWhitelist: [],
  collections: [],
  createdBy: 'user:u1',
  actsForOthers: false,
  parentKeyId: null,
  secretVerifier: 'f00d',
  createdAt: T0,
  ...over,
});

const created = (over: Partial<ApiKeyCreatedData> = {}): ApiKeyEvent => ({ type: 'keys.ApiKeyCreated', data: key(over) });
const revoked = (at = T1, workspaceId = 'ws_1'): ApiKeyEvent => ({ type: 'keys.ApiKeyRevoked', data: { keyId: 'key_1', workspaceId, revokedAt: at, cascadedFrom: null } });

const cascaded = (): ApiKeyEvent => ({ type: 'keys.ApiKeyRevocationCascaded', data: { keyId: 'key_1', workspaceId: 'ws_1', cascadedAt: T1 } });

const USER = { kind: 'user', userId: 'user:u1', role: 'member' } as const;
const create = (over: Partial<ApiKeyCreatedData> = {}, now = T0): ApiKeyCommand => {
  const { createdAt: _at, createdBy: _by, parentKeyId: _parent, ...request } = key(over);
  return { kind: 'create', request, grantor: USER, now };
};
const revoke = (over: Partial<Extract<ApiKeyCommand, { kind: 'revoke' }>> = {}): ApiKeyCommand => ({
  kind: 'revoke',
  keyId: 'key_1',
  workspaceId: 'ws_1',
  grantor: USER,
  at: T1,
  ...over,
});

const finishCascade: ApiKeyCommand = { kind: 'finish-cascade', keyId: 'key_1', workspaceId: 'ws_1', at: T1 };

const spec = deciderSpec(apiKeyDecider);

const states: ReadonlyArray<readonly [ApiKeyState['status'], readonly ApiKeyEvent[]]> = [
  ['absent', []],
  ['active', [created()]],
  ['inactive', [created({ status: 'inactive' })]],
  ['revoked', [created(), revoked()]],
];

describe('apiKeyDecider', () => {
  it('starts absent', () => {
    expect(apiKeyDecider.initialState()).toEqual({ status: 'absent' });
  });

  describe('create', () => {
    it('creates an absent key with what the command carries', () => {
      const state = spec.given([]).when(create()).then([created()]);
      expect(state).toEqual({ status: 'active', key: key(), updatedAt: T0 });
    });

    it('creates an inactive key as inactive', () => {
      const state = spec.given([]).when(create({ status: 'inactive' })).then([created({ status: 'inactive' })]);
      expect(state.status).toBe('inactive');
    });

    it('accepts an expiry in the future', () => {
      spec.given([]).when(create({ expiresAt: T1 }, T0)).then([created({ expiresAt: T1 })]);
    });

    it('accepts an expiry a millisecond after now', () => {
      const expiresAt = '2025-01-01T00:00:00.001Z';
      spec.given([]).when(create({ expiresAt }, T0)).then([created({ expiresAt })]);
    });

    it('rejects an expiry in the past as a validation error on expiresAt', () => {
      const error = spec.given([]).when(create({ expiresAt: T0 }, T1)).thenThrows('validation', /future/);
      expect(error.issues).toEqual([expect.objectContaining({ loc: ['message', 'expiresAt'] })]);
    });

    it('rejects an expiry equal to now', () => {
      spec.given([]).when(create({ expiresAt: T1 }, T1)).thenThrows('validation');
    });

    it('compares instants, not strings, across time zone offsets', () => {
      // 01:00 at +02:00 is 23:00 the day before in UTC: in the past relative to T0.
      spec.given([]).when(create({ expiresAt: '2025-01-01T01:00:00+02:00' }, T0)).thenThrows('validation');
      // 01:00 at -02:00 is 03:00 UTC: in the future.
      spec.given([]).when(create({ expiresAt: '2025-01-01T01:00:00-02:00' }, T0)).then([created({ expiresAt: '2025-01-01T01:00:00-02:00' })]);
    });

    it.each([
      ['active', [created()]],
      ['inactive', [created({ status: 'inactive' })]],
      ['revoked', [created(), revoked()]],
    ] as const)('conflicts when the key is %s', (_status, given) => {
      spec.given(given).when(create()).thenThrows('conflict', /key_1/);
    });
  });

  describe('revoke', () => {
    it('revokes an active key', () => {
      const state = spec.given([created()]).when(revoke()).then([revoked(T1)]);
      expect(state).toEqual({ status: 'revoked', key: key(), updatedAt: T1, cascaded: false });
    });

    it('revokes an inactive key', () => {
      const state = spec.given([created({ status: 'inactive' })]).when(revoke()).then([revoked(T1)]);
      expect(state.status).toBe('revoked');
    });

    it('is a no-op the second time: no event, state unchanged', () => {
      const given = [created(), revoked(T1)];
      const before = spec.given(given).state;
      const after = spec.given(given).when(revoke({ at: T2 })).thenNothingHappened();
      expect(after).toEqual(before);
      expect(after).toMatchObject({ status: 'revoked', updatedAt: T1 });
    });

    it('is not found when the key is absent', () => {
      spec.given([]).when(revoke()).thenThrows('not_found');
    });

    it('is not found from another workspace, whatever the key status', () => {
      spec.given([created()]).when(revoke({ workspaceId: 'ws_2' })).thenThrows('not_found');
      spec.given([created({ status: 'inactive' })]).when(revoke({ workspaceId: 'ws_2' })).thenThrows('not_found');
      // Revoked already: another workspace must still not learn that the key exists.
      spec.given([created(), revoked()]).when(revoke({ workspaceId: 'ws_2' })).thenThrows('not_found');
    });
  });

  describe('every command in every state', () => {
    const expected: Record<ApiKeyState['status'], Record<ApiKeyCommand['kind'], readonly ApiKeyEvent[] | 'conflict' | 'not_found'>> = {
      absent: { create: [created()], revoke: 'not_found', 'finish-cascade': 'not_found' },
      active: { create: 'conflict', revoke: [revoked(T1)], 'finish-cascade': 'conflict' },
      inactive: { create: 'conflict', revoke: [revoked(T1)], 'finish-cascade': 'conflict' },
      revoked: { create: 'conflict', revoke: [], 'finish-cascade': [cascaded()] },
    };
    for (const [status, given] of states) {
      for (const command of [create(), revoke(), finishCascade]) {
        const outcome = expected[status][command.kind];
        it(`${command.kind} in ${status} → ${typeof outcome === 'string' ? outcome : `[${outcome.map((e) => e.type).join(', ')}]`}`, () => {
          const arranged = spec.given(given);
          expect(arranged.state.status).toBe(status);
          if (typeof outcome === 'string') arranged.when(command).thenThrows(outcome);
          else arranged.when(command).then(outcome);
        });
      }
    }
  });

  describe('evolve', () => {
    it('folds creation then revocation, keeping the key data', () => {
      const data = key({ permissions: ['*'], ipWhitelist: ['10.0.0.0/8'], expiresAt: T2 });
      expect(spec.given([{ type: 'keys.ApiKeyCreated', data }, revoked(T1)]).state).toEqual({ status: 'revoked', key: data, updatedAt: T1, cascaded: false });
    });

    it('records a finished cascade once, and only in the key\'s own workspace', () => {
      const state = spec.given([created(), revoked(), cascaded()]).state;
      expect(state).toMatchObject({ status: 'revoked', cascaded: true });
      spec.given([created(), revoked(), cascaded()]).when(finishCascade).then([]);
      spec.given([created(), revoked()]).when({ ...finishCascade, workspaceId: 'ws_2' }).thenThrows('not_found');
    });

    it('ignores a revocation of an absent key', () => {
      expect(apiKeyDecider.evolve({ status: 'absent' }, revoked())).toEqual({ status: 'absent' });
    });

    it('does not mutate the state it folds from', () => {
      const before = spec.given([created()]).state;
      const snapshot = structuredClone(before);
      apiKeyDecider.evolve(before, revoked());
      expect(before).toEqual(snapshot);
    });
  });
});

describe('upcastApiKeyEvent', () => {
  const recorded = (type: string, data: unknown) => recordedEvent('apikey-key_1', type, data, T0);

  it.each([created(), created({ expiresAt: T2, status: 'inactive' }), revoked(), cascaded()])('returns a well-formed $type unchanged', (event) => {
    expect(upcastApiKeyEvent(recorded(event.type, event.data))).toEqual(event);
  });

  const { secretVerifier: _omitted, ...withoutVerifier } = key();
  it.each([
    ['an unknown type', recorded('keys.ApiKeyRenamed', key())],
    ['a missing secret verifier', recorded('keys.ApiKeyCreated', withoutVerifier)],
    ['a created status of revoked', recorded('keys.ApiKeyCreated', { ...key(), status: 'revoked' })],
    ['permissions that are not a list', recorded('keys.ApiKeyCreated', { ...key(), permissions: 'memories:read' })],
    ['an absent (rather than null) expiry', recorded('keys.ApiKeyCreated', { ...key(), expiresAt: undefined })],
    ['a revocation without its time', recorded('keys.ApiKeyRevoked', { keyId: 'key_1', workspaceId: 'ws_1' })],
    ['null data', recorded('keys.ApiKeyRevoked', null)],
  ])('rejects %s', (_what, event) => {
    expect(() => upcastApiKeyEvent(event)).toThrow();
  });
});

describe('apiKeyDecider: a key created by a key is never wider than its creator', () => {
  const parent = key({ keyId: 'key_p', permissions: ['memories:*', 'api_keys:write'], ipWhitelist: ['127.0.0.1'], collections: ['c1', 'c2'], expiresAt: '2025-01-01T01:00:00.000Z' });
  const byKey = (over: Partial<ApiKeyRequest> = {}, from: ApiKeyCreatedData = parent): ApiKeyCommand => ({
    kind: 'create',
    request: { keyId: 'key_1', workspaceId: 'ws_1', label: 'child', status: 'active', secretVerifier: 'f00d', ...over },
    grantor: { kind: 'api_key', key: from, ancestors: [] },
    now: T0,
  });
  const createdBy = (from: ApiKeyCreatedData, over: Partial<ApiKeyCreatedData>): ApiKeyEvent => created({ label: 'child', createdBy: from.createdBy, parentKeyId: from.keyId, ...over });

  it("inherits every omitted limit: permissions, collections, IP rules and expiry", () => {
    spec.given([]).when(byKey()).then([
      createdBy(parent, { permissions: parent.permissions, collections: parent.collections, ipWhitelist: ['127.0.0.1'], expiresAt: parent.expiresAt }),
    ]);
  });

  it('accepts narrower limits', () => {
    spec
      .given([])
      .when(byKey({ permissions: ['memories:read'], collections: ['c1'], ipWhitelist: ['127.0.0.1/32'], expiresAt: '2025-01-01T00:30:00.000Z' }))
      .then([createdBy(parent, { permissions: ['memories:read'], collections: ['c1'], ipWhitelist: ['127.0.0.1/32'], expiresAt: '2025-01-01T00:30:00.000Z' })]);
  });

  it.each([
    ['no IP rules (any address)', { ipWhitelist: [] }],
    ['an address outside its rules', { ipWhitelist: ['10.0.0.1'] }],
    ['a range wider than its rules', { ipWhitelist: ['127.0.0.0/8'] }],
    ['no expiry', { expiresAt: null }],
    ['a later expiry', { expiresAt: '2025-01-01T02:00:00.000Z' }],
    ['a permission it lacks', { permissions: ['collections:read'] }],
    ['a wildcard it does not hold', { permissions: ['*'] }],
    ['all collections', { collections: [] }],
    ['a collection it lacks', { collections: ['c3'] }],
  ] as const)('refuses %s with 403', (_what, over) => {
    spec.given([]).when(byKey(over)).thenThrows('forbidden');
  });

  it('lets a key with any address hand out any IP rules, within ranges of the same family', () => {
    const open = key({ keyId: 'key_o', permissions: ['*'], ipWhitelist: [] });
    spec.given([]).when(byKey({ ipWhitelist: ['10.0.0.0/8'] }, open)).then([createdBy(open, { permissions: ['*'], ipWhitelist: ['10.0.0.0/8'] })]);
    const ranged = key({ keyId: 'key_r', permissions: ['*'], ipWhitelist: ['10.0.0.0/8'] });
    spec.given([]).when(byKey({ ipWhitelist: ['10.1.2.3', '10.2.0.0/16'] }, ranged)).then([createdBy(ranged, { permissions: ['*'], ipWhitelist: ['10.1.2.3', '10.2.0.0/16'] })]);
    spec.given([]).when(byKey({ ipWhitelist: ['::ffff:10.1.2.3/128'] }, ranged)).thenThrows('forbidden');
  });

  it('refuses a creator without api_keys:write, even for a key within its grants', () => {
    const reader = key({ keyId: 'key_r', permissions: ['memories:read'] });
    spec.given([]).when(byKey({ permissions: ['memories:read'] }, reader)).thenThrows('forbidden');
  });

  it('refuses to create a key in another workspace than its own', () => {
    spec.given([]).when(byKey({ workspaceId: 'ws_2' })).thenThrows('forbidden');
  });

  describe('revocation', () => {
    const narrow = key({ keyId: 'key_n', permissions: ['api_keys:write'] });
    it('takes covering the revoked key\'s grants', () => {
      spec.given([created({ permissions: ['*'] })]).when(revoke({ grantor: { kind: 'api_key', key: narrow, ancestors: [] } })).thenThrows('forbidden');
      spec.given([created({ collections: [] })]).when(revoke({ grantor: { kind: 'api_key', key: key({ permissions: ['*'], collections: ['c1'] }), ancestors: [] } })).thenThrows('forbidden');
      spec.given([created({ permissions: ['api_keys:write'] })]).when(revoke({ grantor: { kind: 'api_key', key: narrow, ancestors: [] } })).then([revoked()]);
    });

    it('takes api_keys:write, whatever else the key covers', () => {
      const reader = key({ keyId: 'key_r', permissions: ['memories:read'] });
      spec.given([created({ permissions: ['memories:read'] })]).when(revoke({ grantor: { kind: 'api_key', key: reader, ancestors: [] } })).thenThrows('forbidden');
    });

    it('never reaches a key the revoking key descends from', () => {
      const child = key({ keyId: 'key_c', permissions: ['*'], parentKeyId: 'key_1' });
      spec.given([created({ permissions: ['*'] })]).when(revoke({ grantor: { kind: 'api_key', key: child, ancestors: ['key_1'] } })).thenThrows('forbidden');
      spec.given([created({ permissions: ['*'] })]).when(revoke({ grantor: { kind: 'api_key', key: child, ancestors: ['key_0'] } })).then([revoked()]);
    });

    it('cascades from the creating key only', () => {
      spec
        .given([created({ parentKeyId: 'key_p' })])
        .when(revoke({ grantor: { kind: 'cascade', parentKeyId: 'key_p' } }))
        .then([{ type: 'keys.ApiKeyRevoked', data: { keyId: 'key_1', workspaceId: 'ws_1', revokedAt: T1, cascadedFrom: 'key_p' } }]);
      spec.given([created({ parentKeyId: 'key_p' })]).when(revoke({ grantor: { kind: 'cascade', parentKeyId: 'key_x' } })).thenThrows('forbidden');
    });
  });
});

describe('apiKeyDecider: acting for others comes only from an administrator', () => {
  const ADMIN = { kind: 'user', userId: 'user:u1', role: 'admin' } as const;
  const byUser = (grantor: Extract<ApiKeyCommand, { kind: 'create' }>['grantor'], permissions?: readonly string[]): ApiKeyCommand => ({
    kind: 'create',
    request: { keyId: 'key_1', workspaceId: 'ws_1', label: 'ci', status: 'active', secretVerifier: 'f00d', ...(permissions === undefined ? {} : { permissions }) },
    grantor,
    now: T0,
  });
  const byKey = (from: ApiKeyCreatedData, permissions?: readonly string[]): ApiKeyCommand => ({
    kind: 'create',
    request: { keyId: 'key_1', workspaceId: 'ws_1', label: 'ci', status: 'active', secretVerifier: 'f00d', ...(permissions === undefined ? {} : { permissions }) },
    grantor: { kind: 'api_key', key: from, ancestors: [] },
    now: T0,
  });

  it("records who minted the key: an administrator's acts for others, a member's does not", () => {
    spec.given([]).when(byUser(ADMIN)).then([created({ permissions: ['*'], actsForOthers: true })]);
    spec.given([]).when(byUser(USER)).then([created({ permissions: ['*'], actsForOthers: false })]);
  });

  it("passes it down a lineage: a key minted by an administrator's key acts for others, a member's key's does not", () => {
    const adminKey = key({ keyId: 'key_a', permissions: ['*'], actsForOthers: true });
    const memberKey = key({ keyId: 'key_m', permissions: ['*'], actsForOthers: false });
    spec.given([]).when(byKey(adminKey)).then([created({ permissions: ['*'], actsForOthers: true, parentKeyId: 'key_a' })]);
    spec.given([]).when(byKey(memberKey)).then([created({ permissions: ['*'], actsForOthers: false, parentKeyId: 'key_m' })]);
  });

  it.each([['admin:read'], ['admin:write'], ['admin:*']])('refuses %s to a member and its keys (403), grants it to an administrator', (permission) => {
    spec.given([]).when(byUser(USER, [permission])).thenThrows('forbidden');
    spec.given([]).when(byKey(key({ keyId: 'key_m', permissions: ['*'] }), [permission])).thenThrows('forbidden');
    spec.given([]).when(byUser(ADMIN, [permission])).then([created({ permissions: [permission], actsForOthers: true })]);
  });

  it("lets a member revoke its own kind of key, never an administrator's", () => {
    spec.given([created({ actsForOthers: true })]).when(revoke({ grantor: USER })).thenThrows('forbidden');
    spec.given([created({ actsForOthers: true, permissions: ['*'] })]).when(revoke({ grantor: { kind: 'api_key', key: key({ keyId: 'key_m', permissions: ['*'] }), ancestors: [] } })).thenThrows('forbidden');
    spec.given([created({ actsForOthers: true })]).when(revoke({ grantor: ADMIN })).then([revoked()]);
    spec.given([created()]).when(revoke({ grantor: USER })).then([revoked()]);
  });

  it('reads keys created before roles as acting only for their creator', () => {
    const { actsForOthers: _none, ...before } = key();
    expect(upcastApiKeyEvent(recordedEvent('apikey-key_1', 'keys.ApiKeyCreated', before, T0))).toEqual(created({ actsForOthers: false }));
  });
});
