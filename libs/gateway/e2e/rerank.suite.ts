import { startTestRerankServer, wordOverlap, type RerankWire, type TestRerankServer } from '@lore/platform/rerank/contract';
import { call, type LoreUnderTest } from './e2e-client';
import { addContent, createCollection, locs, owner, search, TOPICS, waitCompleted } from './knowledge-fixtures';

/**
 * Stand-ins for the four rerank APIs (each speaking its documented wire format; the rerank
 * contract's test server), started before the Lore under test so its environment names them.
 */
export interface RerankStandIns {
  readonly env: Record<string, string>;
  readonly servers: Readonly<Record<RerankWire, TestRerankServer>>;
  close(): Promise<void>;
}

export async function startRerankStandIns(): Promise<RerankStandIns> {
  const [cohere, jina, tei, vllm] = await Promise.all((['cohere', 'jina', 'tei', 'vllm'] as const).map((wire) => startTestRerankServer(wire, { apiKey: `key-${wire}` })));
  const servers = { cohere: cohere!, jina: jina!, tei: tei!, vllm: vllm! };
  return {
    servers,
    env: {
      RERANK_COHERE_BASE_URL: servers.cohere.baseUrl,
      RERANK_COHERE_API_KEY: 'key-cohere',
      RERANK_JINA_BASE_URL: servers.jina.baseUrl,
      RERANK_JINA_API_KEY: 'key-jina',
      RERANK_TEI_BASE_URL: servers.tei.baseUrl,
      RERANK_TEI_API_KEY: 'key-tei',
      RERANK_VLLM_BASE_URL: servers.vllm.baseUrl,
      RERANK_VLLM_API_KEY: 'key-vllm',
      RERANK_DEFAULT_PROVIDER: 'cohere',
      // A hung provider is a 504 within a second (the suite's timeout case).
      RERANK_TIMEOUT_MS: '1000',
    },
    close: async () => {
      await Promise.all(Object.values(servers).map((s) => s.close()));
    },
  };
}

const QUERY = 'photosynthesis turns sunlight and water into glucose';

interface Hit {
  content: string;
  score: number;
  scores: { vector: unknown; keyword: unknown; retrieval?: { score: number; rank: number }; rerank?: { score: number; rank: number } };
}

/** Re-ranking of knowledge search, memory search and the context endpoint (README: Re-ranking). */
export function describeRerank(lore: () => LoreUnderTest, standIns: () => RerankStandIns): void {
  describe('re-ranking', () => {
    let token: string;
    let collectionId: string;

    beforeAll(async () => {
      ({ token } = await owner(lore()));
      collectionId = (await createCollection(lore(), token)).id;
      const contents = await Promise.all(Object.values(TOPICS).map((topic) => addContent(lore(), token, { collection_id: collectionId, name: topic.source, text: topic.text })));
      await Promise.all(contents.map((c: { id: string }) => waitCompleted(lore(), token, c.id)));
    });

    it('re-ranks the retrieval candidates with the provider asked for: top_n hits in its order, each with retrieval and rerank scores', async () => {
      const server = standIns().servers.cohere;
      server.requests.splice(0);
      const reply = await search(lore(), token, { query: QUERY, collection_id: collectionId, max_results: 5, rerank: { provider: 'cohere', top_n: 2, candidates: 5 } });
      expect(reply.status).toBe(200);
      const results = reply.body.results as Hit[];
      // The stand-in scored every candidate; Lore kept its best two, in its order.
      expect(server.requests).toHaveLength(1);
      const sent = server.requests[0]!.body as { query: string; documents: string[]; model: string };
      expect(sent).toMatchObject({ query: QUERY, model: 'rerank-v3.5' });
      expect(sent.documents).toHaveLength(5);
      const expected = [...sent.documents].map((d, i) => ({ d, i, s: wordOverlap(QUERY, d) })).sort((a, b) => b.s - a.s || a.i - b.i).slice(0, 2);
      expect(results.map((r) => r.content)).toEqual(expected.map((e) => e.d));
      results.forEach((hit, i) => {
        expect(hit.scores.rerank).toEqual({ score: expected[i]!.s, rank: i + 1 });
        expect(hit.score).toBe(hit.scores.rerank!.score);
        expect(hit.scores.retrieval?.rank).toBe(expected[i]!.i + 1);
        expect(hit.scores.vector).not.toBeNull();
      });
      expect(reply.body.rerank).toMatchObject({ provider: 'cohere', model: 'rerank-v3.5', candidates: 5, top_n: 2, applied: true, error: null });
      expect(server.requests[0]!.headers.authorization).toBe('Bearer key-cohere');
    });

    it("applies a collection's default (settings.rerank) unless the query says rerank: false", async () => {
      const updated = await call(lore(), 'PATCH', `/api/v1/collections/${collectionId}`, { token, body: { settings: { rerank: { provider: 'tei', top_n: 3 } } } });
      expect(updated.status).toBe(200);
      expect(updated.body.settings.rerank).toEqual({ provider: 'tei', top_n: 3 });
      const tei = standIns().servers.tei;
      tei.requests.splice(0);
      const byDefault = await search(lore(), token, { query: QUERY, collection_id: collectionId });
      expect(byDefault.status).toBe(200);
      expect(byDefault.body.rerank).toMatchObject({ provider: 'tei', top_n: 3, applied: true });
      expect(byDefault.body.results).toHaveLength(3);
      expect(tei.requests[0]!.body).toMatchObject({ query: QUERY, raw_scores: false, truncate: true });
      // A query's fields override the default's, field by field.
      const overridden = await search(lore(), token, { query: QUERY, collection_id: collectionId, rerank: { top_n: 1 } });
      expect(overridden.body.rerank).toMatchObject({ provider: 'tei', top_n: 1 });
      const off = await search(lore(), token, { query: QUERY, collection_id: collectionId, rerank: false });
      expect(off.body.rerank).toBeNull();
      expect((off.body.results as Hit[]).every((r) => r.scores.rerank === undefined)).toBe(true);
      await call(lore(), 'PATCH', `/api/v1/collections/${collectionId}`, { token, body: { settings: { rerank: null } } });
    });

    it('refuses an unknown provider or bad options with 422 at the field', async () => {
      const unknown = await search(lore(), token, { query: QUERY, collection_id: collectionId, rerank: { provider: 'nobody' } });
      expect(unknown.status).toBe(422);
      expect(locs(unknown)).toEqual([['body', 'rerank', 'provider']]);
      const unknownDefault = await call(lore(), 'PATCH', `/api/v1/collections/${collectionId}`, { token, body: { settings: { rerank: { provider: 'nobody' } } } });
      expect(unknownDefault.status).toBe(422);
      expect(locs(unknownDefault)).toEqual([['body', 'settings', 'rerank', 'provider']]);
      const bad = await search(lore(), token, { query: QUERY, collection_id: collectionId, rerank: { top_n: 0, on_error: 'maybe' } });
      expect(bad.status).toBe(422);
      expect(locs(bad)).toEqual(expect.arrayContaining([['body', 'rerank', 'top_n'], ['body', 'rerank', 'on_error']]));
    });

    it('answers 502 with the provider\'s message when it keeps failing, or the retrieval order with on_error: "skip"', async () => {
      const jina = standIns().servers.jina;
      jina.script({ status: 503 }, { status: 503 }, { status: 503 });
      const failed = await search(lore(), token, { query: QUERY, collection_id: collectionId, rerank: { provider: 'jina' } });
      expect(failed.status).toBe(502);
      expect(failed.body).toEqual({ detail: 'Rerank provider jina answered 503: scripted 503' });
      jina.script({ status: 400, body: { detail: 'model not found' } });
      const skipped = await search(lore(), token, { query: QUERY, collection_id: collectionId, max_results: 3, rerank: { provider: 'jina', on_error: 'skip' } });
      expect(skipped.status).toBe(200);
      expect(skipped.body.rerank).toMatchObject({ provider: 'jina', applied: false, error: 'Rerank provider jina answered 400: model not found' });
      const plain = await search(lore(), token, { query: QUERY, collection_id: collectionId, max_results: 3 });
      expect((skipped.body.results as Hit[]).map((r) => r.content)).toEqual((plain.body.results as Hit[]).map((r) => r.content));
    });

    it('answers 504 when the provider does not answer in time', async () => {
      standIns().servers.vllm.script({ hang: true });
      const reply = await search(lore(), token, { query: QUERY, collection_id: collectionId, rerank: { provider: 'vllm' } });
      expect(reply.status).toBe(504);
      expect(reply.body.detail).toBe('Rerank provider vllm did not answer within 1000 ms');
    });

    it("re-ranks a user's memories", async () => {
      for (const memory of ['I grow tomatoes on my balcony', 'My sister lives in Lisbon', 'I water the tomatoes every morning before work']) {
        expect((await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory } })).status).toBe(201);
      }
      const reply = await call(lore(), 'POST', '/api/v1/memories/search', { token, body: { query: 'when do I water the tomatoes', limit: 2, rerank: { provider: 'vllm', candidates: 3 } } });
      expect(reply.status).toBe(200);
      expect(reply.body.results.map((r: { memory: string }) => r.memory)).toEqual(['I water the tomatoes every morning before work', 'I grow tomatoes on my balcony']);
      expect(reply.body.results[0].scores).toMatchObject({ rerank: { rank: 1 }, retrieval: { rank: expect.any(Number) } });
      expect(reply.body.rerank).toMatchObject({ provider: 'vllm', model: 'BAAI/bge-reranker-v2-m3', candidates: 3, top_n: 2, applied: true });
    });

    it('re-ranks the passages and memories of the context endpoint', async () => {
      const conversation = await call(lore(), 'POST', '/api/v1/conversations', { token, body: { title: 'plants', collection_ids: [collectionId] } });
      expect(conversation.status).toBe(201);
      const reply = await call(lore(), 'POST', `/api/v1/conversations/${conversation.body.id}/context`, { token, body: { query: QUERY, chunk_limit: 2, rerank: { provider: 'cohere' } } });
      expect(reply.status).toBe(200);
      expect(reply.body.chunks[0].content).toBe(TOPICS.biology.text);
      expect(reply.body.chunks.map((c: { rerank: { rank: number } }) => c.rerank.rank)).toEqual([1, 2]);
      expect(reply.body.memories.every((m: { rerank: unknown }) => m.rerank !== null)).toBe(true);
      standIns().servers.cohere.script({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
      const skipped = await call(lore(), 'POST', `/api/v1/conversations/${conversation.body.id}/context`, { token, body: { query: QUERY, rerank: { provider: 'cohere', on_error: 'skip' } } });
      expect(skipped.status).toBe(200);
      expect(skipped.body.warnings).toEqual(expect.arrayContaining([`collection ${collectionId} not re-ranked: Rerank provider cohere answered 500: scripted 500`]));
      // With the default on_error ("fail"), a failed reranker fails the context as it fails a search.
      standIns().servers.cohere.script({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
      const failed = await call(lore(), 'POST', `/api/v1/conversations/${conversation.body.id}/context`, { token, body: { query: QUERY, rerank: { provider: 'cohere' } } });
      expect(failed.status).toBe(502);
      expect(failed.body).toEqual({ detail: 'Rerank provider cohere answered 500: scripted 500' });
    });
  });
}
