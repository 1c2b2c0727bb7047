/**
 * Lore's TypeScript SDK in one file: upload a few files, wait until they are processed,
 * search them, and build the context of a conversation's next turn.
 *
 *   LORE_BASE_URL=http://localhost:8080 LORE_API_KEY=<API key or JWT> npm run example:typescript
 *
 * It works offline with Lore's local embedding model (MODELS_DIR, see the README).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoreClient } from '@lore/client';

export interface ExampleOptions {
  readonly lore: LoreClient;
  readonly filesDir: string;
  readonly log?: (line: string) => void;
}

export async function runExample({ lore, filesDir, log = console.log }: ExampleOptions): Promise<void> {
  // 1. A collection, and every file of the folder uploaded into it (multipart).
  const collection = await lore.collections.create({ name: 'Tea notes' });
  const uploads = await Promise.all(
    readdirSync(filesDir).sort().map((name) => lore.contents.upload({ collection_id: collection.id, file: new File([readFileSync(join(filesDir, name))], name) })),
  );

  // 2. Lore extracts, chunks and embeds them in the background: wait until each is searchable.
  for (const upload of uploads) {
    const content = await lore.contents.waitUntilProcessed(upload.id);
    log(`processed ${content.name}: ${content.chunk_count} chunk(s)`);
  }

  // 3. Hybrid search (vector + BM25), with each retriever's own score.
  const found = await lore.collections.search({ collection_id: collection.id, query: 'What temperature should the water be for green tea?', max_results: 3 });
  for (const result of found.results) {
    log(`${result.score.toFixed(3)} ${result.content_name} (vector ${result.scores.vector?.score.toFixed(3) ?? '-'}, keyword ${result.scores.keyword?.score.toFixed(3) ?? '-'}): ${result.content.slice(0, 60)}…`);
  }

  // 4. A conversation over the collection, and the context an assistant needs for its next turn.
  const conversation = await lore.conversations.create({ title: 'Tea help', collection_ids: [collection.id] });
  await lore.conversations.append(conversation.id, { role: 'user', content: 'How hot should the water be for my green tea, and how do I keep the leaves fresh?' });
  const context = await lore.conversations.context(conversation.id, { max_tokens: 600 });
  log(`context: ${context.total_tokens} of ${context.max_tokens} tokens, ${context.chunks.length} passage(s)`);
  log(context.context);
}

if (require.main === module) {
  let lore: LoreClient;
  try {
    // LORE_API_KEY, LORE_BASE_URL (default http://localhost:8080), LORE_WORKSPACE_ID: as the Python SDK reads them.
    lore = LoreClient.fromEnvironment();
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)} (see the README)`);
    process.exit(2);
  }
  runExample({ lore, filesDir: process.env['EXAMPLE_FILES'] ?? join(process.cwd(), 'examples/typescript/files') }).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
