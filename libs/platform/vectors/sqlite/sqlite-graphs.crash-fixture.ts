/**
 * Run by sqlite-graphs.int.spec.ts (bundled) and killed with SIGKILL while it writes: fills a
 * store past the graph threshold, saves the graph, then upserts and deletes in batches until
 * killed, printing each committed batch.
 */
import { SqliteVectorStore } from './sqlite-vector-store.adapter';
import { clustered } from './graph-test-points';

async function main(): Promise<void> {
  const path = process.argv[2] ?? '';
  const store = new SqliteVectorStore({ path, graphs: { minPoints: 1000, saveDelayMs: 50, sliceMs: 2 } });
  await store.ensureIndex({ name: 'ix', dimensions: 16, distance: 'cosine' });
  const points = clustered(1500, 1);
  for (let i = 0; i < points.length; i += 500) await store.write([{ op: 'upsert', index: 'ix', points: points.slice(i, i + 500) }]);
  await store.flushGraphs();
  process.stdout.write('snapshot\n');
  for (let batch = 0; ; batch++) {
    const fresh = clustered(50, 1000 + batch, `b${batch}-`);
    await store.write([
      { op: 'upsert', index: 'ix', points: fresh },
      { op: 'delete', index: 'ix', ids: [`p${batch * 3}`, `p${batch * 3 + 1}`] },
    ]);
    process.stdout.write(`batch ${batch}\n`);
    // Let the graph take writes in and save snapshots now and then, as a service would.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

void main();
