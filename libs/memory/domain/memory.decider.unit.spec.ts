import { deciderSpec, recordedEvent } from '@lore/platform/testing';
import { memoryDecider, type MemoryCommand, type MemoryState } from './memory.decider';
import type { MemoryCreated, MemoryDeleted, MemoryEvent, MemoryInvalidated, MemoryReplaced, Provenance } from './memory.events';
import { upcastMemoryEvent } from './memory.upcasters';

const owner = { workspaceId: 'ws_1', userId: 'user_1' } as const;
const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-02T00:00:00.000Z';
const T2 = '2025-01-03T00:00:00.000Z';

const created: MemoryCreated = {
  type: 'memory.MemoryCreated',
  data: { memoryId: 'mem_1', ...owner, memoryType: 'user', content: 'sealed-v1', createdAt: T0 },
};
const replaced = (version: number, content: string, at: string): MemoryReplaced => ({
  type: 'memory.MemoryReplaced',
  data: { memoryId: 'mem_1', ...owner, version, content, replacedAt: at },
});
const deleted: MemoryDeleted = {
  type: 'memory.MemoryDeleted',
  data: { memoryId: 'mem_1', ...owner, deletedAt: T1 },
};

const create = (over: Partial<Extract<MemoryCommand, { kind: 'create' }>> = {}): MemoryCommand => ({
  kind: 'create',
  ...owner,
  memoryId: 'mem_1',
  memoryType: 'user',
  content: 'sealed-v1',
  at: T0,
  ...over,
});
const replace = (over: Partial<Extract<MemoryCommand, { kind: 'replace' }>> = {}): MemoryCommand => ({
  kind: 'replace',
  ...owner,
  content: 'sealed-v2',
  at: T1,
  ...over,
});
const provenance = (decisionId: string, decision: Provenance['decision'], undoes: string | null = null): Provenance => ({
  decisionId,
  decision,
  check: decision === 'undo' ? 'user' : 'model',
  extractionId: 'ext_1',
  conversationId: null,
  sourceMessageIds: ['msg_1'],
  model: 'scripted',
  promptVersion: 'memory-extraction/v1',
  undoes,
  note: 'sealed-note',
});
const invalidate = (decisionId = 'dec_inv'): MemoryCommand => ({ kind: 'invalidate', ...owner, provenance: provenance(decisionId, 'invalidate'), at: T1 });
const match = (): MemoryCommand => ({ kind: 'match', ...owner, provenance: provenance('dec_none', 'none'), at: T1 });
const undo = (undoes: string): MemoryCommand => ({ kind: 'undo', ...owner, provenance: { ...provenance('dec_undo', 'undo', undoes), undoes }, at: T2 });
const invalidated = (version: number, decisionId = 'dec_inv'): MemoryInvalidated => ({
  type: 'memory.MemoryInvalidated',
  data: { memoryId: 'mem_1', ...owner, version, invalidatedAt: T1, provenance: provenance(decisionId, 'invalidate') },
});
const remove = (over: Partial<Extract<MemoryCommand, { kind: 'delete' }>> = {}): MemoryCommand => ({ kind: 'delete', ...owner, at: T1, ...over });

const spec = deciderSpec(memoryDecider);

/** The three states a memory can be in, each reached through its own events. */
const states: ReadonlyArray<readonly [MemoryState['status'], readonly MemoryEvent[]]> = [
  ['absent', []],
  ['active', [created]],
  ['deleted', [created, deleted]],
];

describe('memoryDecider', () => {
  it('starts absent', () => {
    expect(memoryDecider.initialState()).toEqual({ status: 'absent' });
    expect(spec.given([]).state).toEqual({ status: 'absent' });
  });

  describe('create', () => {
    it('creates an absent memory at version 1', () => {
      const state = spec.given([]).when(create()).then([created]);
      expect(state).toEqual({
        status: 'active',
        memoryId: 'mem_1',
        workspaceId: 'ws_1',
        userId: 'user_1',
        memoryType: 'user',
        content: 'sealed-v1',
        version: 1,
        createdAt: T0,
        updatedAt: T0,
        superseded: false,
        expiresAt: null,
        lastDecision: null,
      });
    });

    it.each(['user', 'agent', 'team', 'workflow'] as const)('keeps the memory type %s', (memoryType) => {
      const state = spec.given([]).when(create({ memoryType })).then([{ ...created, data: { ...created.data, memoryType } }]);
      expect(state).toMatchObject({ status: 'active', memoryType });
    });

    it('conflicts when the memory exists', () => {
      spec.given([created]).when(create()).thenThrows('conflict', /mem_1/);
    });

    it('conflicts when the memory was deleted: a deleted id is never reused', () => {
      spec.given([created, deleted]).when(create()).thenThrows('conflict');
    });

    it('conflicts even for another owner: existence is not owner-scoped for create', () => {
      spec.given([created]).when(create({ workspaceId: 'ws_2', userId: 'user_2' })).thenThrows('conflict');
    });
  });

  describe('replace', () => {
    it('replaces an active memory and increments the version', () => {
      const state = spec.given([created]).when(replace()).then([replaced(2, 'sealed-v2', T1)]);
      expect(state).toMatchObject({ status: 'active', content: 'sealed-v2', version: 2, createdAt: T0, updatedAt: T1 });
    });

    it('increments the version once per replacement', () => {
      const state = spec
        .given([created, replaced(2, 'sealed-v2', T1)])
        .when(replace({ content: 'sealed-v3', at: T2 }))
        .then([replaced(3, 'sealed-v3', T2)]);
      expect(state).toMatchObject({ version: 3, content: 'sealed-v3', updatedAt: T2 });
    });

    it.each([
      ['absent', []],
      ['deleted', [created, deleted]],
    ] as const)('is not found when the memory is %s', (_status, given) => {
      spec.given(given).when(replace()).thenThrows('not_found');
    });

    it('is not found for another user of the same workspace', () => {
      spec.given([created]).when(replace({ userId: 'user_2' })).thenThrows('not_found');
    });

    it('is not found for the same user in another workspace', () => {
      spec.given([created]).when(replace({ workspaceId: 'ws_2' })).thenThrows('not_found');
    });
  });

  describe('delete', () => {
    it('deletes an active memory', () => {
      const state = spec.given([created, replaced(2, 'sealed-v2', T1)]).when(remove()).then([deleted]);
      expect(state).toEqual({ status: 'deleted', memoryId: 'mem_1', ...owner });
    });

    it('is not found when the memory is absent', () => {
      spec.given([]).when(remove()).thenThrows('not_found');
    });

    it('changes nothing when its owner deletes it again (erasure may still be pending)', () => {
      spec.given([created, deleted]).when(remove()).thenNothingHappened();
    });

    it('is not found for another user or another workspace, also once deleted', () => {
      spec.given([created]).when(remove({ userId: 'user_2' })).thenThrows('not_found');
      spec.given([created]).when(remove({ workspaceId: 'ws_2' })).thenThrows('not_found');
      spec.given([created, deleted]).when(remove({ userId: 'user_2' })).thenThrows('not_found');
      spec.given([created, deleted]).when(remove({ workspaceId: 'ws_2' })).thenThrows('not_found');
    });
  });

  describe('every command in every state', () => {
    /** Events for a command that succeeds, an error code for one that is refused. */
    const expected: Record<MemoryState['status'], Record<MemoryCommand['kind'], readonly MemoryEvent[] | 'conflict' | 'not_found'>> = {
      absent: { create: [created], replace: 'not_found', delete: 'not_found', invalidate: 'not_found', match: 'not_found', undo: 'not_found' },
      active: {
        create: 'conflict',
        replace: [replaced(2, 'sealed-v2', T1)],
        delete: [deleted],
        invalidate: [invalidated(2)],
        match: [{ type: 'memory.MemoryMatched', data: { memoryId: 'mem_1', ...owner, matchedAt: T1, provenance: provenance('dec_none', 'none') } }],
        undo: 'conflict',
      },
      deleted: { create: 'conflict', replace: 'not_found', delete: [], invalidate: 'not_found', match: 'not_found', undo: 'not_found' },
    };
    const commands: ReadonlyArray<MemoryCommand> = [create(), replace(), remove(), invalidate(), match(), undo('dec_x')];
    for (const [status, given] of states) {
      for (const command of commands) {
        const outcome = expected[status][command.kind];
        it(`${command.kind} in ${status} → ${typeof outcome === 'string' ? outcome : outcome.map((e) => e.type).join(', ')}`, () => {
          const arranged = spec.given(given);
          expect(arranged.state.status).toBe(status);
          if (typeof outcome === 'string') arranged.when(command).thenThrows(outcome);
          else arranged.when(command).then(outcome);
        });
      }
    }
  });

  describe('evolve', () => {
    it('folds a history into the latest content, version and times', () => {
      const state = spec.given([created, replaced(2, 'b', T1), replaced(3, 'c', T2)]).state;
      expect(state).toEqual({
        status: 'active',
        memoryId: 'mem_1',
        workspaceId: 'ws_1',
        userId: 'user_1',
        memoryType: 'user',
        content: 'c',
        version: 3,
        createdAt: T0,
        updatedAt: T2,
        superseded: false,
        expiresAt: null,
        lastDecision: null,
      });
    });

    it('takes the version from the event, not from counting', () => {
      expect(spec.given([created, replaced(7, 'x', T1)]).state).toMatchObject({ version: 7 });
    });

    it('ignores a replacement that arrives for a memory that is not active', () => {
      expect(memoryDecider.evolve({ status: 'absent' }, replaced(2, 'x', T1))).toEqual({ status: 'absent' });
      expect(spec.given([created, deleted, replaced(2, 'x', T2)]).state).toEqual({ status: 'deleted', memoryId: 'mem_1', ...owner });
    });

    it('does not mutate the state it folds from', () => {
      const before = spec.given([created]).state;
      const snapshot = structuredClone(before);
      memoryDecider.evolve(before, replaced(2, 'x', T1));
      expect(before).toEqual(snapshot);
    });
  });
});

describe('upcastMemoryEvent', () => {
  const recorded = (type: string, data: unknown) => recordedEvent('memory-mem_1', type, data, T0);

  it.each([created, replaced(2, 'x', T1), deleted] as const)('returns a well-formed $type unchanged', (event) => {
    expect(upcastMemoryEvent(recorded(event.type, event.data))).toEqual(event);
  });

  it.each([
    ['an unknown type', recorded('memory.MemoryRenamed', created.data)],
    ['a missing field', recorded('memory.MemoryCreated', { ...created.data, userId: undefined })],
    ['an unknown memory type', recorded('memory.MemoryCreated', { ...created.data, memoryType: 'robot' })],
    ['a fractional version', recorded('memory.MemoryReplaced', { ...replaced(2, 'x', T1).data, version: 2.5 })],
    ['a version given as text', recorded('memory.MemoryReplaced', { ...replaced(2, 'x', T1).data, version: '2' })],
    ['data that is not an object', recorded('memory.MemoryDeleted', 'mem_1')],
    ['null data', recorded('memory.MemoryDeleted', null)],
  ])('rejects %s', (_what, event) => {
    expect(() => upcastMemoryEvent(event)).toThrow();
  });

  describe('model decisions and their undo', () => {
    const decidedUpdate: MemoryReplaced = { ...replaced(2, 'sealed-berlin', T1), data: { ...replaced(2, 'sealed-berlin', T1).data, provenance: provenance('dec_upd', 'update') } };

    it('undoes an update by restoring the version before it, as a new version', () => {
      spec
        .given([created, decidedUpdate])
        .when(undo('dec_upd'))
        .then([{ type: 'memory.MemoryReplaced', data: { memoryId: 'mem_1', ...owner, version: 3, content: 'sealed-v1', replacedAt: T2, provenance: { ...provenance('dec_undo', 'undo', 'dec_upd') } } }]);
    });

    it('undoes an add by invalidating the memory, and an invalidation by reinstating it', () => {
      const decidedAdd: MemoryCreated = { ...created, data: { ...created.data, provenance: provenance('dec_add', 'add') } };
      spec.given([decidedAdd]).when(undo('dec_add')).then([{ ...invalidated(2, 'dec_undo'), data: { ...invalidated(2).data, invalidatedAt: T2, provenance: provenance('dec_undo', 'undo', 'dec_add') } }]);
      spec
        .given([created, invalidated(2)])
        .when(undo('dec_inv'))
        .then([{ type: 'memory.MemoryReinstated', data: { memoryId: 'mem_1', ...owner, version: 3, reinstatedAt: T2, provenance: provenance('dec_undo', 'undo', 'dec_inv') } }]);
    });

    it('undoes only the latest decision, and not once a client edit has overtaken it', () => {
      spec.given([created, decidedUpdate, invalidated(3)]).when(undo('dec_upd')).thenThrows('conflict');
      spec.given([created, decidedUpdate, replaced(3, 'sealed-edit', T2)]).when(undo('dec_upd')).thenThrows('conflict');
    });

    it('does not invalidate a memory twice; a superseded memory stays in the state, marked', () => {
      const arranged = spec.given([created, invalidated(2)]);
      expect(arranged.state).toMatchObject({ status: 'active', superseded: true, version: 2 });
      arranged.when(invalidate('dec_again')).thenThrows('conflict');
    });
  });
});
