/**
 * Entry point of the bundle test (local-embeddings-bundle.int.spec.ts): built with the options
 * of tools/build.mjs, it embeds and tokenizes one text through the worker and prints the result.
 */
import { localEmbeddingOptionsFromEnv } from './local-embedding-options';
import { LocalEmbeddingProvider } from './local-embeddings.adapter';

async function main(): Promise<void> {
  const provider = new LocalEmbeddingProvider({ ...localEmbeddingOptionsFromEnv(), download: false });
  try {
    const [vector] = await provider.embedDocuments(['Embedded from the esbuild bundle.']);
    const [tokens] = await provider.tokenize(['Embedded from the esbuild bundle.']);
    let norm = 0;
    for (const x of vector ?? []) norm += x * x;
    process.stdout.write(JSON.stringify({ dimensions: vector?.length, norm: Math.sqrt(norm), tokens: tokens?.count, source: provider.stats().source }));
  } finally {
    await provider.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
