// An OpenAI-compatible POST /v1/embeddings for probes (loopback only): a hashed bag of words per
// input, a few ms per request, so a probe measures Lore's pipeline rather than a model.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

export const STAND_IN_DIMENSIONS = 64;

/** Starts the stand-in; `url` is the API root for EMBEDDING_OPENAI_BASE_URL. */
export async function startEmbeddingStandIn() {
  let requests = 0;
  const server = createServer((req, res) => {
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', () => {
      requests++;
      const { input } = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const data = input.map((text, index) => {
        const vector = new Array(STAND_IN_DIMENSIONS).fill(0);
        vector[0] = 0.01;
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          const hash = createHash('sha1').update(word).digest();
          vector[hash.readUInt32LE(0) % STAND_IN_DIMENSIONS] += hash[4] % 2 === 0 ? 1 : -1;
        }
        return { object: 'embedding', index, embedding: vector };
      });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data, model: 'probe', usage: { prompt_tokens: 0, total_tokens: 0 } }));
      }, 3);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests: () => requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The environment that makes Lore's default model the stand-in. */
export function standInEnv(standIn) {
  return {
    EMBEDDING_DEFAULT_PROVIDER: 'openai-compatible',
    EMBEDDING_OPENAI_BASE_URL: standIn.url,
    EMBEDDING_OPENAI_MODEL: 'probe-embedder',
    EMBEDDING_OPENAI_DIMENSIONS: String(STAND_IN_DIMENSIONS),
    EMBEDDING_OPENAI_MAX_INPUT_TOKENS: '512',
  };
}
