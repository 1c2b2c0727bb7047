import { describeWithModels } from '@lore/platform/embeddings/contract';
import { call, unique, type LoreUnderTest, type Reply } from './e2e-client';
import { owner, waitCompleted, createCollection, addContent, search, SEARCH_TYPES, ids, locs, TOPICS, type Owner, type Topic } from './knowledge-fixtures';
import { describeKnowledgeContents } from './knowledge-contents.suite';
import { describeKnowledgeChunks } from './knowledge-chunks.suite';

/**
 * Knowledge over HTTP (SPEC §2.2, 2.6, 2.7, 2.9, 4.2–4.4): collections, contents (JSON and
 * file uploads, processed in the background), chunks, search, and who may see what. Needs
 * the embedding model (MODELS_DIR). Collections are shared across tests where they are only
 * read; tests that change things make their own.
 */
export function describeKnowledge(lore: () => LoreUnderTest): void {
  // Skips loudly (naming MODELS_DIR) without the model; under CI=true its absence fails.
  describeWithModels('knowledge', () => {
    /** One workspace with a read-only collection of the five topics, shared by the search and isolation tests. */
    let alice: Owner;
    let shared: any;
    const contentOf = {} as Record<Topic, string>;

    beforeAll(async () => {
      alice = await owner(lore());
      shared = await createCollection(lore(), alice.token, { name: 'Topics', description: 'five distinct topics' });
      for (const [name, topic] of Object.entries(TOPICS)) {
        const created = await addContent(lore(), alice.token, { collection_id: shared.id, name, text: topic.text, metadata: topic.metadata, source: topic.source });
        contentOf[name as Topic] = created.id;
      }
      for (const id of Object.values(contentOf)) await waitCompleted(lore(), alice.token, id);
    }, 90_000);

    describe('collections', () => {
      it('creates a collection with the documented defaults', async () => {
        const me = await owner(lore());
        const created = await call(lore(), 'POST', '/api/v1/collections', { token: me.token, body: { name: 'Handbook' } });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({
          name: 'Handbook',
          workspace_id: me.workspace,
          visibility: 'private',
          status: 'active',
          store_type: 'vector',
          tags: [],
          created_by: expect.any(String),
          embedding: { provider: 'local', model: 'Xenova/all-MiniLM-L6-v2', dimensions: 384, distance: 'cosine', max_input_tokens: 254 },
          settings: { chunk_size: 254, chunk_overlap: 32 },
          stats: { content_count: 0, chunk_count: 0, total_bytes: 0 },
        });
        expect(typeof created.body.id).toBe('string');
        expect(Date.parse(created.body.created_at)).not.toBeNaN();
        const got = await call(lore(), 'GET', `/api/v1/collections/${created.body.id}`, { token: me.token });
        expect(got.status).toBe(200);
        expect(got.body).toEqual(created.body);
        expect((await call(lore(), 'GET', `/api/v1/collections/${unique('col')}`, { token: me.token })).status).toBe(404);
      });

      it('counts contents, chunks and bytes in stats', async () => {
        const got = await call(lore(), 'GET', `/api/v1/collections/${shared.id}`, { token: alice.token });
        const bytes = Object.values(TOPICS).reduce((sum, t) => sum + Buffer.byteLength(t.text), 0);
        expect(got.body.stats).toEqual({ content_count: 5, chunk_count: 5, total_bytes: bytes });
      });

      it('validates creation with 422 in the FastAPI shape, naming the field', async () => {
        const me = await owner(lore());
        const cases: Array<[unknown, Array<string | number>]> = [
          [{}, ['body', 'name']],
          [{ name: '' }, ['body', 'name']],
          [{ name: 'x'.repeat(101) }, ['body', 'name']],
          [{ name: 'ok', description: 'd'.repeat(256) }, ['body', 'description']],
          [{ name: 'ok', settings: { chunk_size: 255 } }, ['body', 'settings', 'chunk_size']],
          [{ name: 'ok', embedding: { model: 'no-such/model' } }, ['body', 'embedding', 'model']],
          [{ name: 'ok', visibility: 'secret' }, ['body', 'visibility']],
        ];
        for (const [body, loc] of cases) {
          const reply = await call(lore(), 'POST', '/api/v1/collections', { token: me.token, body });
          expect({ body, status: reply.status }).toEqual({ body, status: 422 });
          expect(locs(reply)).toContainEqual(loc);
          for (const d of reply.body.detail) expect(typeof d.msg === 'string' && typeof d.type === 'string').toBe(true);
        }
        expect((await call(lore(), 'POST', '/api/v1/collections', { token: me.token, body: { name: 'x'.repeat(100), description: 'd'.repeat(255) } })).status).toBe(201);
        expect((await call(lore(), 'POST', '/api/v1/collections', { token: me.token, body: { name: 'y', settings: { chunk_size: 254 } } })).status).toBe(201);
        expect((await call(lore(), 'GET', '/api/v1/collections', { token: me.token })).body.total_count).toBe(2);
      });

      it('lists in the offset envelope with skip/limit bounds and status, visibility, search and tags filters', async () => {
        const me = await owner(lore());
        const a = await createCollection(lore(), me.token, { name: 'Alpha Recipes', tags: ['food', 'home'] });
        const b = await createCollection(lore(), me.token, { name: 'Beta', description: 'Notes about GARDENING', visibility: 'public', tags: ['home'] });
        const c = await createCollection(lore(), me.token, { name: 'Gamma', status: 'archived', tags: ['food', 'home', 'work'] });
        const list = async (query: string): Promise<Reply> => call(lore(), 'GET', `/api/v1/collections${query}`, { token: me.token });
        const namesOf = (reply: Reply): string[] => reply.body.data.map((x: { id: string }) => x.id).sort();

        const all = await list('');
        expect(all.status).toBe(200);
        expect(all.body).toMatchObject({ total_count: 3, page: 1, limit: 100, next_page: null, has_more: false });
        expect(namesOf(all)).toEqual([a.id, b.id, c.id].sort());

        const first = await list('?limit=1');
        expect(first.body).toMatchObject({ total_count: 3, page: 1, limit: 1, next_page: 2, has_more: true });
        expect(first.body.data).toHaveLength(1);
        const last = await list('?skip=2&limit=1');
        expect(last.body).toMatchObject({ total_count: 3, page: 3, limit: 1, next_page: null, has_more: false });
        expect(last.body.data).toHaveLength(1);
        const pages = [first, await list('?skip=1&limit=1'), last].map((r) => r.body.data[0].id);
        expect(new Set(pages).size).toBe(3);

        for (const bad of ['?limit=0', '?limit=1001', '?skip=-1', '?visibility=secret']) {
          const reply = await list(bad);
          expect({ bad, status: reply.status }).toEqual({ bad, status: 422 });
          expect(reply.body.detail[0].loc[0]).toBe('query');
        }
        expect((await list('?limit=1000')).status).toBe(200);

        expect(namesOf(await list('?status=archived'))).toEqual([c.id]);
        expect(namesOf(await list('?status=active'))).toEqual([a.id, b.id].sort());
        expect(namesOf(await list('?visibility=public'))).toEqual([b.id]);
        expect(namesOf(await list('?visibility=private'))).toEqual([a.id, c.id].sort());
        expect(namesOf(await list('?search=alpha'))).toEqual([a.id]);
        expect(namesOf(await list('?search=gardening'))).toEqual([b.id]);
        expect(namesOf(await list('?search=MM'))).toEqual([c.id]);
        expect(namesOf(await list('?tags=food'))).toEqual([a.id, c.id].sort());
        expect(namesOf(await list('?tags=food,work'))).toEqual([c.id]);
        expect(namesOf(await list('?tags=home'))).toEqual([a.id, b.id, c.id].sort());
        expect((await list('?tags=food&status=active')).body.total_count).toBe(1);
      });

      it('updates name, tags and settings with PATCH', async () => {
        const me = await owner(lore());
        const col = await createCollection(lore(), me.token, { name: 'Before', tags: ['a'], description: 'kept' });
        const patched = await call(lore(), 'PATCH', `/api/v1/collections/${col.id}`, { token: me.token, body: { name: 'After', tags: ['b', 'c'], settings: { chunk_size: 128 } } });
        expect(patched.status).toBe(200);
        expect(patched.body).toMatchObject({ id: col.id, name: 'After', tags: ['b', 'c'], description: 'kept', settings: { chunk_size: 128, chunk_overlap: 32 }, created_at: col.created_at });
        expect(patched.body.updated_at >= col.updated_at).toBe(true);
        expect((await call(lore(), 'GET', `/api/v1/collections/${col.id}`, { token: me.token })).body).toEqual(patched.body);
        const bad = await call(lore(), 'PATCH', `/api/v1/collections/${col.id}`, { token: me.token, body: { settings: { chunk_size: 300 } } });
        expect(bad.status).toBe(422);
        expect(locs(bad)).toContainEqual(['body', 'settings', 'chunk_size']);
        expect((await call(lore(), 'PATCH', `/api/v1/collections/${unique('col')}`, { token: me.token, body: { name: 'x' } })).status).toBe(404);
      });

      it('deletes a collection with its contents, chunks and vectors', async () => {
        const me = await owner(lore());
        const marker = `zorbex${Math.random().toString(36).slice(2, 8)}`;
        const doomed = await createCollection(lore(), me.token);
        const other = await createCollection(lore(), me.token);
        const text = `The ${marker} lighthouse keeper logs every passing ship.`;
        const gone = await addContent(lore(), me.token, { collection_id: doomed.id, name: 'doomed', text });
        const kept = await addContent(lore(), me.token, { collection_id: other.id, name: 'kept', text });
        await waitCompleted(lore(), me.token, gone.id);
        await waitCompleted(lore(), me.token, kept.id);
        const chunkIds = (await call(lore(), 'GET', `/chunks?content_id=${gone.id}`, { token: me.token })).body.chunks.map((c: { id: string }) => c.id);
        expect(chunkIds.length).toBeGreaterThan(0);
        for (const search_type of SEARCH_TYPES) {
          const before = await search(lore(), me.token, { collection_id: doomed.id, query: marker, search_type });
          expect(ids(before.body.results)).toEqual([gone.id]);
        }

        const deleted = await call(lore(), 'DELETE', `/api/v1/collections/${doomed.id}`, { token: me.token });
        expect(deleted.status).toBe(200);
        // Read at once: the deletion's response waits for the read models, not for a later clean-up.
        expect((await call(lore(), 'GET', `/chunks?content_id=${gone.id}`, { token: me.token })).body.chunks).toEqual([]);
        for (const id of chunkIds) expect((await call(lore(), 'GET', `/api/v1/chunks/${id}`, { token: me.token })).status).toBe(404);
        const byCollection = await call(lore(), 'GET', `/chunks?collection_id=${doomed.id}`, { token: me.token });
        expect(byCollection.status === 404 || (byCollection.status === 200 && byCollection.body.chunks.length === 0)).toBe(true);
        expect((await call(lore(), 'GET', `/api/v1/collections/${doomed.id}`, { token: me.token })).status).toBe(404);
        expect((await call(lore(), 'GET', `/api/v1/contents/${gone.id}`, { token: me.token })).status).toBe(404);
        expect((await call(lore(), 'GET', '/contents', { token: me.token })).body.contents.map((c: { id: string }) => c.id)).toEqual([kept.id]);
        for (const search_type of SEARCH_TYPES) {
          expect((await search(lore(), me.token, { collection_id: doomed.id, query: marker, search_type })).status).toBe(404);
          const elsewhere = await search(lore(), me.token, { collection_id: other.id, query: marker, search_type });
          expect(elsewhere.status).toBe(200);
          expect(ids(elsewhere.body.results)).toEqual([kept.id]);
        }
        expect((await call(lore(), 'DELETE', `/api/v1/collections/${doomed.id}`, { token: me.token })).status).toBe(404);
      });
    });

    describeKnowledgeContents(lore);
    describeKnowledgeChunks(lore);

    describe('search', () => {
      const expectTop = async (search_type: string, query: string, topic: Topic): Promise<void> => {
        const reply = await search(lore(), alice.token, { collection_id: shared.id, query, search_type });
        expect(reply.status).toBe(200);
        expect({ search_type, query, top: reply.body.results[0]?.content_id }).toEqual({ search_type, query, top: contentOf[topic] });
      };

      it('finds the right content by vector, keyword and hybrid (the default) search', async () => {
        await expectTop('vector', 'how do plants make food from light', 'biology');
        await expectTop('vector', 'container orchestration on a cluster', 'kubernetes');
        await expectTop('keyword', 'Westphalia', 'history');
        await expectTop('keyword', 'marathon endurance', 'sport');
        await expectTop('hybrid', 'descaling the espresso machine', 'coffee');
        await expectTop('hybrid', 'peace treaty that ended a war in Europe', 'history');
        const byDefault = await search(lore(), alice.token, { collection_id: shared.id, query: 'kubernetes pods' });
        expect(byDefault.body.search_type).toBe('hybrid');
        expect(byDefault.body.results[0].content_id).toBe(contentOf.kubernetes);
      });

      it('returns results in the documented shape, each leg scored', async () => {
        for (const search_type of SEARCH_TYPES) {
          const reply = await search(lore(), alice.token, { collection_id: shared.id, query: 'lorefact espresso coffee', search_type });
          expect(reply.status).toBe(200);
          expect(reply.body).toMatchObject({ query: 'lorefact espresso coffee', search_type, collection_id: shared.id, total_results: reply.body.results.length });
          expect(typeof reply.body.execution_time_ms).toBe('number');
          const [top] = reply.body.results;
          expect(top).toEqual({
            content: TOPICS.coffee.text,
            score: expect.any(Number),
            metadata: expect.objectContaining(TOPICS.coffee.metadata),
            content_id: contentOf.coffee,
            source: TOPICS.coffee.source,
            chunk_id: expect.any(String),
            chunk_index: 0,
            content_name: 'coffee',
            scores: {
              vector: search_type === 'keyword' ? null : { score: expect.any(Number), rank: expect.any(Number) },
              keyword: search_type === 'vector' ? null : { score: expect.any(Number), rank: expect.any(Number) },
            },
          });
          const scores = reply.body.results.map((r: { score: number }) => r.score);
          expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
        }
      });

      it('bounds max_results (1-100, default 10) and validates the body', async () => {
        for (const [max_results, status] of [[0, 422], [101, 422], [1, 200], [100, 200]] as const) {
          const reply = await search(lore(), alice.token, { collection_id: shared.id, query: 'lorefact', max_results });
          expect({ max_results, status: reply.status }).toEqual({ max_results, status });
          if (status === 422) expect(locs(reply)).toContainEqual(['body', 'max_results']);
          else expect(reply.body.results.length).toBeLessThanOrEqual(max_results);
        }
        expect((await search(lore(), alice.token, { collection_id: shared.id, query: 'lorefact', max_results: 1 })).body.results).toHaveLength(1);
        for (const [body, loc] of [
          [{ collection_id: shared.id }, ['body', 'query']],
          [{ collection_id: shared.id, query: '' }, ['body', 'query']],
          [{ query: 'x' }, ['body', 'collection_id']],
          [{ collection_id: shared.id, query: 'x', search_type: 'semantic' }, ['body', 'search_type']],
        ] as const) {
          const reply = await search(lore(), alice.token, body);
          expect(reply.status).toBe(422);
          expect(locs(reply)).toContainEqual(loc);
        }
        const me = await owner(lore());
        const many = await createCollection(lore(), me.token);
        const made = [];
        for (let i = 0; i < 12; i++) made.push(await addContent(lore(), me.token, { collection_id: many.id, name: `n${i}`, text: `note ${i} about lighthouses` }));
        for (const c of made) await waitCompleted(lore(), me.token, c.id);
        for (const search_type of SEARCH_TYPES) {
          const reply = await search(lore(), me.token, { collection_id: many.id, query: 'lighthouses', search_type });
          expect({ search_type, n: reply.body.results.length }).toEqual({ search_type, n: 10 });
          const wide = await search(lore(), me.token, { collection_id: many.id, query: 'lighthouses', search_type, max_results: 100 });
          expect({ search_type, n: wide.body.results.length }).toEqual({ search_type, n: 12 });
        }
      }, 60_000);

      it('applies filters in all three search types', async () => {
        const cases: Array<[Record<string, unknown>, Topic[]]> = [
          [{ 'metadata.topic': 'biology' }, ['biology']],
          [{ 'metadata.topic': { $in: ['coffee', 'sport'] } }, ['coffee', 'sport']],
          [{ 'metadata.year': { $gt: 2021 } }, ['biology', 'sport']],
          [{ 'metadata.year': { $gte: 2021, $lt: 2023 } }, ['biology', 'kubernetes']],
          [{ 'metadata.reviewed': { $exists: true } }, ['coffee']],
          [{ 'metadata.reviewed': { $exists: false } }, ['biology', 'history', 'kubernetes', 'sport']],
          [{ $and: [{ 'metadata.year': { $gt: 2019 } }, { tags: 'drink' }] }, ['sport']],
          [{ $or: [{ 'metadata.topic': 'history' }, { 'metadata.year': 2019 }] }, ['coffee', 'history']],
          [{ $not: { 'metadata.topic': { $in: ['coffee', 'sport', 'history'] } } }, ['biology', 'kubernetes']],
          [{ content_id: '<history>' }, ['history']],
          [{ source: TOPICS.kubernetes.source }, ['kubernetes']],
          [{ tags: 'drink' }, ['coffee', 'sport']],
          [{ tags: { $containsAll: ['science', 'plants'] } }, ['biology']],
          [{ 'metadata.topic': 'nothing-like-this' }, []],
        ];
        for (const [raw, topics] of cases) {
          const filters = JSON.parse(JSON.stringify(raw).replace('"<history>"', JSON.stringify(contentOf.history))) as Record<string, unknown>;
          const expected = topics.map((t) => contentOf[t]).sort();
          for (const search_type of SEARCH_TYPES) {
            const reply = await search(lore(), alice.token, { collection_id: shared.id, query: 'lorefact', search_type, filters });
            expect({ filters, search_type, status: reply.status, ids: reply.status === 200 ? ids(reply.body.results) : reply.body }).toEqual({ filters, search_type, status: 200, ids: expected });
          }
        }
      });

      it('refuses a malformed filter with 422 located under body.filters', async () => {
        for (const filters of [{ 'metadata.topic': { $regex: 'bio.*' } }, { $and: { 'metadata.a': 1 } }, { 'metadata.bad key!': 1 }, { unknown_field: 1 }]) {
          for (const search_type of SEARCH_TYPES) {
            const reply = await search(lore(), alice.token, { collection_id: shared.id, query: 'lorefact', search_type, filters });
            expect({ filters, search_type, status: reply.status }).toEqual({ filters, search_type, status: 422 });
            expect(reply.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'filters']);
            expect(typeof reply.body.detail[0].msg).toBe('string');
          }
        }
        // The whole place, array indexes as numbers, in the grammar compiler's words.
        const nested = await search(lore(), alice.token, { collection_id: shared.id, query: 'lorefact', filters: { $and: [{ 'metadata.a': 1 }, { 'metadata.x': { $regex: 'a' } }] } });
        expect(nested.body).toEqual({ detail: [{ loc: ['body', 'filters', '$and', 1, 'metadata.x', '$regex'], msg: 'unknown operator $regex', type: 'value_error' }] });
      });

      it('answers 404 for an unknown collection', async () => {
        for (const search_type of SEARCH_TYPES) {
          const reply = await search(lore(), alice.token, { collection_id: unique('col'), query: 'lorefact', search_type });
          expect(reply.status).toBe(404);
          expect(typeof reply.body.detail).toBe('string');
        }
      });

      it('accepts the fusion options of hybrid search', async () => {
        for (const fusion of [{ method: 'rrf', k: 10 }, { method: 'relative_score', alpha: 0.3 }, { method: 'weighted_score', weight: 0.5 }]) {
          const reply = await search(lore(), alice.token, { collection_id: shared.id, query: 'photosynthesis in plants', fusion });
          expect({ fusion, status: reply.status }).toEqual({ fusion, status: 200 });
          expect(reply.body.results[0].content_id).toBe(contentOf.biology);
        }
        const bad = await search(lore(), alice.token, { collection_id: shared.id, query: 'x', fusion: { method: 'rrf', k: 0 } });
        expect(bad.status).toBe(422);
        expect(locs(bad)[0]).toEqual(expect.arrayContaining(['body', 'fusion']));
      });
    });

    describe('isolation', () => {
      let chunkId: string;
      beforeAll(async () => {
        chunkId = (await call(lore(), 'GET', `/chunks?content_id=${contentOf.biology}`, { token: alice.token })).body.chunks[0].id;
      });

      it("hides a workspace's collections, contents and chunks from another workspace", async () => {
        const mallory = await owner(lore());
        for (const [method, path, body] of [
          ['GET', `/api/v1/collections/${shared.id}`, undefined],
          ['PATCH', `/api/v1/collections/${shared.id}`, { name: 'mine now' }],
          ['DELETE', `/api/v1/collections/${shared.id}`, undefined],
          ['GET', `/api/v1/contents/${contentOf.biology}`, undefined],
          ['DELETE', `/api/v1/contents/${contentOf.biology}`, undefined],
          ['POST', `/api/v1/contents/${contentOf.biology}/reprocess`, undefined],
          ['GET', `/api/v1/chunks/${chunkId}`, undefined],
          ['PATCH', `/chunks/${chunkId}`, { metadata: { pwned: true } }],
          ['DELETE', `/api/v1/chunks/${chunkId}`, undefined],
          ['GET', `/contents?collection_id=${shared.id}`, undefined],
          ['GET', `/chunks?collection_id=${shared.id}`, undefined],
          ['POST', '/api/v1/collections/search', { collection_id: shared.id, query: 'lorefact' }],
        ] as const) {
          const reply = await call(lore(), method, path, { token: mallory.token, ...(body ? { body } : {}) });
          expect({ method, path, status: reply.status }).toEqual({ method, path, status: 404 });
          expect(JSON.stringify(reply.body)).not.toContain('lorefact');
        }
        const added = await call(lore(), 'POST', '/api/v1/contents', { token: mallory.token, body: { collection_id: shared.id, name: 'x', text: 'intruder' } });
        expect(added.status).toBe(422);
        expect((await call(lore(), 'GET', '/api/v1/collections', { token: mallory.token })).body).toMatchObject({ data: [], total_count: 0 });
        expect((await call(lore(), 'GET', '/contents', { token: mallory.token })).body).toMatchObject({ contents: [], total_count: 0 });
        expect((await call(lore(), 'GET', `/chunks?content_id=${contentOf.biology}`, { token: mallory.token })).body.chunks).toEqual([]);
        expect((await call(lore(), 'GET', '/chunks', { token: mallory.token })).body.chunks).toEqual([]);
        // Nothing changed for the owner.
        const got = await call(lore(), 'GET', `/api/v1/collections/${shared.id}`, { token: alice.token });
        expect(got.body.name).toBe('Topics');
        expect((await call(lore(), 'GET', `/api/v1/chunks/${chunkId}`, { token: alice.token })).body.metadata).not.toHaveProperty('pwned');
      });

      it('confines an API key to its collections', async () => {
        const other = await createCollection(lore(), alice.token, { name: 'Other' });
        const otherContent = await addContent(lore(), alice.token, { collection_id: other.id, name: 'other', text: 'lorefact secret launch codes for the other collection' });
        await waitCompleted(lore(), alice.token, otherContent.id);
        const otherChunk = (await call(lore(), 'GET', `/chunks?content_id=${otherContent.id}`, { token: alice.token })).body.chunks[0].id;
        const created = await call(lore(), 'POST', '/api/v1/api-keys', { token: alice.token, body: { label: 'topics only', permissions: ['collections:read', 'collections:write'], collections: [shared.id] } });
        expect(created.status).toBe(201);
        const key = created.body.key as string;

        const listed = await call(lore(), 'GET', '/api/v1/collections', { token: key });
        expect(listed.status).toBe(200);
        expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([shared.id]);
        expect(listed.body.total_count).toBe(1);
        expect((await call(lore(), 'GET', `/api/v1/collections/${shared.id}`, { token: key })).status).toBe(200);
        expect((await search(lore(), key, { collection_id: shared.id, query: 'lorefact' })).status).toBe(200);
        const contents = await call(lore(), 'GET', '/contents', { token: key });
        expect(contents.body.contents.map((c: { collection_id: string }) => c.collection_id)).toEqual(expect.arrayContaining([shared.id]));
        expect(contents.body.contents.every((c: { collection_id: string }) => c.collection_id === shared.id)).toBe(true);
        expect(contents.body.total_count).toBe(5);
        const chunks = await call(lore(), 'GET', '/chunks', { token: key });
        expect(chunks.body.chunks.every((c: { collection_id: string }) => c.collection_id === shared.id)).toBe(true);

        for (const [method, path, body] of [
          ['GET', `/api/v1/collections/${other.id}`, undefined],
          ['PATCH', `/api/v1/collections/${other.id}`, { name: 'x' }],
          ['DELETE', `/api/v1/collections/${other.id}`, undefined],
          ['GET', `/api/v1/contents/${otherContent.id}`, undefined],
          ['DELETE', `/api/v1/contents/${otherContent.id}`, undefined],
          ['GET', `/contents?collection_id=${other.id}`, undefined],
          ['GET', `/api/v1/chunks/${otherChunk}`, undefined],
          ['PATCH', `/chunks/${otherChunk}`, { content: 'overwritten' }],
          ['GET', `/chunks?collection_id=${other.id}`, undefined],
          ['POST', '/api/v1/collections/search', { collection_id: other.id, query: 'launch codes' }],
        ] as const) {
          const reply = await call(lore(), method, path, { token: key, ...(body ? { body } : {}) });
          expect({ method, path, status: reply.status }).toEqual({ method, path, status: 404 });
          expect(JSON.stringify(reply.body)).not.toContain('launch codes');
        }
        expect((await call(lore(), 'GET', `/chunks?content_id=${otherContent.id}`, { token: key })).body.chunks).toEqual([]);
        expect((await call(lore(), 'POST', '/api/v1/contents', { token: key, body: { collection_id: other.id, name: 'x', text: 'x' } })).status).toBe(422);
        expect((await call(lore(), 'GET', `/api/v1/contents/${otherContent.id}`, { token: alice.token })).status).toBe(200);
        // A key limited to collections could never see a collection it made: it may not make one.
        const made = await call(lore(), 'POST', '/api/v1/collections', { token: key, body: { name: 'by the key' } });
        expect(made.status).toBe(403);
        expect(typeof made.body.detail).toBe('string');
        expect((await call(lore(), 'GET', '/api/v1/collections?search=by%20the%20key', { token: alice.token })).body.total_count).toBe(0);
        const chunkOfKey = (await call(lore(), 'PATCH', `/chunks/${chunkId}`, { token: key, body: { metadata: { ...TOPICS.biology.metadata } } })).status;
        expect(chunkOfKey).toBe(200);

        const reader = (await call(lore(), 'POST', '/api/v1/api-keys', { token: alice.token, body: { label: 'reader', permissions: ['collections:read'] } })).body.key as string;
        expect((await call(lore(), 'GET', `/api/v1/collections/${shared.id}`, { token: reader })).status).toBe(200);
        expect((await call(lore(), 'POST', '/api/v1/collections', { token: reader, body: { name: 'nope' } })).status).toBe(403);
        expect((await call(lore(), 'POST', '/api/v1/contents', { token: reader, body: { collection_id: shared.id, name: 'x', text: 'x' } })).status).toBe(403);
        expect((await call(lore(), 'PATCH', `/chunks/${chunkId}`, { token: reader, body: { metadata: {} } })).status).toBe(403);
        const writer = (await call(lore(), 'POST', '/api/v1/api-keys', { token: alice.token, body: { label: 'memories', permissions: ['memories:read'] } })).body.key as string;
        expect((await call(lore(), 'GET', '/api/v1/collections', { token: writer })).status).toBe(403);
      });
    });
  });
}
