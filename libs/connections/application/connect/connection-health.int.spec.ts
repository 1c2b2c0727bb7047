import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { systemClock } from '@lore/platform/kernel';
import { CONNECTIONS } from '../connection.read-models';
import { connectionHealth, inTurns } from './connection-health.worker';

const silent = { warn: () => undefined, error: () => undefined };

describe('connection health check: fair and bounded', () => {
  it('takes workspaces in turns', () => {
    const items = ['a1', 'a2', 'a3', 'a4', 'b1', 'c1', 'c2'].map((id) => ({ id, ws: id[0] ?? '' }));
    expect(inTurns(items, (i) => i.ws).map((i) => i.id)).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3', 'a4']);
  });

  it('checks active and error connections only, workspace after workspace, never more than the concurrency at once', async () => {
    const documents = openSqliteDocumentStore({ path: ':memory:' });
    const connections = documents.collection(CONNECTIONS);
    const doc = (id: string, workspace: string, status: string, at: number) => ({ id, workspace_id: workspace, user_id: 'u', status, updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, at)).toISOString() });
    // A crowded workspace first in time, then two small ones; disabled, expired and testing ones are left alone.
    for (let i = 0; i < 6; i++) await connections.upsert(doc(`big${i}`, 'big', 'active', i));
    await connections.upsert(doc('small1', 'small', 'error', 10));
    await connections.upsert(doc('tiny1', 'tiny', 'active', 11));
    for (const [id, status] of [['off', 'inactive'], ['dead', 'expired'], ['busy', 'testing']] as const) await connections.upsert(doc(id, 'small', status, 12));

    const order: string[] = [];
    let inFlight = 0;
    let most = 0;
    const tests = {
      check: async (_owner: { workspaceId: string; userId: string }, id: string) => {
        order.push(id);
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        if (id === 'big1') throw new Error('one failure stays with its connection');
      },
    };
    const health = connectionHealth({ documents, clock: systemClock, log: silent, tests, config: { health: { intervalMs: 60_000, concurrency: 2, refreshAheadMs: 0 } } });
    expect(await health.checkAll()).toBe(8);
    expect(order.slice(0, 3).sort()).toEqual(['big0', 'small1', 'tiny1']);
    expect(order).toHaveLength(8);
    expect(most).toBe(2);
    await documents.close();
  });
});
