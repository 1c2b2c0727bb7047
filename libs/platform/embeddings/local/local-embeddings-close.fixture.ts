/**
 * Entry point of the close test (local-embeddings-close.int.spec.ts): starts embedding a large
 * batch and closes the provider while the worker is inside an inference run. Exits 0 when the
 * process survives; an abort inside onnxruntime ends it with a signal instead.
 */
import { localEmbeddingOptionsFromEnv } from './local-embedding-options';
import { LocalEmbeddingProvider } from './local-embeddings.adapter';

async function main(): Promise<void> {
  const provider = new LocalEmbeddingProvider({ ...localEmbeddingOptionsFromEnv(), download: false });
  await provider.embedDocuments(['warm up: the model is loaded before the run that is cut']);
  const texts = Array.from({ length: 64 }, (_, i) => `passage ${i} ${'about tides and the moon and the sea '.repeat(30)}`);
  const running = provider.embedDocuments(texts).then(
    () => 'finished',
    () => 'failed',
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  await provider.close();
  process.stdout.write(`closed while the batch ${await running}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
