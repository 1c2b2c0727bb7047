import { workspaceCollection, type WorkspaceDoc } from '@lore/platform/documents/port';
import type { ContractContext } from './contract-context';

/** Two workspaces' documents interleaved, so that a read leaking across them shows in every answer. */
const DOCS: readonly WorkspaceDoc[] = [
  { id: 'a1', workspace_id: 'ws-a', kind: 'note', rank: 1 },
  { id: 'b1', workspace_id: 'ws-b', kind: 'note', rank: 2 },
  { id: 'a2', workspace_id: 'ws-a', kind: 'task', rank: 3 },
  { id: 'b2', workspace_id: 'ws-b', kind: 'task', rank: 4 },
  { id: 'a3', workspace_id: 'ws-a', kind: 'note', rank: 5 },
];

/**
 * `workspaceCollection`, which every query's reads of workspace-owned read models go through:
 * on each engine, no read answers with another workspace's document, whatever the filter says.
 */
export function describeWorkspaceContract(ctx: ContractContext): void {
  describe('documents: reads confined to a workspace', () => {
    const seeded = async () => {
      const name = ctx.uniqueName();
      const docs = ctx.store().collection(name);
      for (const doc of DOCS) await docs.upsert(doc);
      return workspaceCollection<WorkspaceDoc>(ctx.store(), name, 'ws-a');
    };
    const ids = (page: { items: readonly WorkspaceDoc[] }) => page.items.map((d) => d.id);

    it("gets the workspace's own document, and null for another workspace's as for a missing one", async () => {
      const docs = await seeded();
      expect(await docs.get('a1')).toEqual(DOCS[0]);
      expect(await docs.get('b1')).toBeNull();
      expect(await docs.get('missing')).toBeNull();
    });

    it('finds and counts only the workspace\'s documents, with or without a filter', async () => {
      const docs = await seeded();
      expect(ids(await docs.find({ sort: [['rank', 'asc']] }))).toEqual(['a1', 'a2', 'a3']);
      expect(ids(await docs.find({ filter: { kind: 'note' }, sort: [['rank', 'asc']] }))).toEqual(['a1', 'a3']);
      expect(await docs.count()).toBe(3);
      expect(await docs.count({ kind: 'task' })).toBe(1);
    });

    it("never widens to another workspace through the caller's filter: a workspace_id of its own, $or, $in", async () => {
      const docs = await seeded();
      expect(ids(await docs.find({ filter: { workspace_id: 'ws-b' }, sort: [['rank', 'asc']] }))).toEqual(['a1', 'a2', 'a3']);
      expect(ids(await docs.find({ filter: { $or: [{ workspace_id: 'ws-b' }, { kind: 'task' }] } }))).toEqual(['a2']);
      expect(await docs.count({ id: { $in: ['a1', 'b1', 'b2'] } })).toBe(1);
    });

    it('pages by cursor within the workspace', async () => {
      const docs = await seeded();
      const first = await docs.find({ sort: [['rank', 'desc']], limit: 2 });
      expect(ids(first)).toEqual(['a3', 'a2']);
      const second = await docs.find({ sort: [['rank', 'desc']], limit: 2, cursor: first.nextCursor ?? '' });
      expect(ids(second)).toEqual(['a1']);
      expect(second.nextCursor).toBeNull();
    });
  });
}
