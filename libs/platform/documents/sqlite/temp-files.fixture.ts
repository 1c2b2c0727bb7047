/**
 * Run by sqlite-temp-files.int.spec.ts (bundled, in a child so that SQLITE_TMPDIR reaches
 * SQLite's own getenv), with SQLite's temp directory watched:
 * 1. the read-model writes of conversation appends: batches of message documents under a text
 *    index and sort indexes, a conversation document rewritten in each, as the conversations
 *    projection writes them;
 * 2. a bulk delete of them all in one batch, as deleting a conversation does.
 * Prints, as JSON, how many files SQLite created in its temp directory during each.
 */
import { watch } from 'node:fs';
import type { DocumentWrite } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from './sqlite-document-store.adapter';

async function main(): Promise<void> {
  let created = 0;
  // SQLite unlinks a temp file as soon as it opens it: only a watch sees it pass.
  const watcher = watch(process.env['SQLITE_TMPDIR'] ?? '', () => void created++);
  // Let the watch events of a phase arrive before they are counted.
  const settle = async (): Promise<number> => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const seen = created;
    created = 0;
    return seen;
  };
  const store = openSqliteDocumentStore({ path: process.argv[2] ?? '' });
  const messages = store.collection('messages');
  for (const sort of ['created_at', 'updated_at', 'sent_at']) await messages.ensureIndex(['workspace_id', 'owner_id', sort]);
  await messages.ensureIndex(['conversation_id', 'created_at']);
  await messages.ensureTextIndex('content');
  const words = 'the user asked about the weather tomorrow and the assistant answered with a forecast'.split(' ');
  for (let batch = 0; batch < 40; batch++) {
    const writes: DocumentWrite[] = Array.from({ length: 16 }, (_, i) => {
      const n = batch * 16 + i;
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
      const content = Array.from({ length: 60 }, (__, w) => `${words[(n + w) % words.length]}${(n * 31 + w) % 97}`).join(' ');
      return { collection: 'messages', op: 'upsert', doc: { id: `m${n}`, workspace_id: 'w', owner_id: `u${n % 5}`, conversation_id: `c${n % 20}`, content, created_at: at, updated_at: at, sent_at: at } };
    });
    writes.push({ collection: 'conversations', op: 'upsert', doc: { id: 'c0', workspace_id: 'w', title: `batch ${batch}`, message_count: batch * 16 } });
    await store.write(writes, { name: 'projection', value: String(batch) });
  }
  const batches = await settle();
  await store.write([{ collection: 'messages', op: 'deleteMany', filter: { workspace_id: 'w' } }], { name: 'projection', value: 'deleted' });
  const bulkDelete = await settle();
  const left = await messages.find({ limit: 1 });
  await store.close();
  watcher.close();
  process.stdout.write(JSON.stringify({ batches, bulkDelete, left: left.items.length }));
}

void main();
