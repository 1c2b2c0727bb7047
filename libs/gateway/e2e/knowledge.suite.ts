import { describeWithModels } from '@lore/platform/embeddings/contract';
import { call, mintJwt, unique, upload, type LoreUnderTest, type Reply } from './e2e-client';
import { rawCall } from './errors.suite';

/**
 * Knowledge over HTTP (SPEC §2.2, 2.6, 2.7, 2.9, 4.2–4.4): collections, contents (JSON and
 * file uploads, processed in the background), chunks, search, and who may see what. Needs
 * the embedding model (MODELS_DIR). Collections are shared across tests where they are only
 * read; tests that change things make their own.
 */

interface Owner {
  readonly token: string;
  readonly workspace: string;
  readonly user: string;
}

async function owner(lore: LoreUnderTest, workspace = unique('ws')): Promise<Owner> {
  const user = unique('user');
  return { token: await mintJwt(lore.jwtSecret, { sub: user, workspace_id: workspace }), workspace, user };
}

const PROCESSING_WAIT_MS = 30_000;

/** Polls a content until it is completed (or failed: then the test fails with its error). */
async function waitCompleted(lore: LoreUnderTest, token: string, contentId: string): Promise<any> {
  const deadline = Date.now() + PROCESSING_WAIT_MS;
  let last: Reply | undefined;
  while (Date.now() < deadline) {
    last = await call(lore, 'GET', `/api/v1/contents/${contentId}`, { token });
    if (last.status !== 200) throw new Error(`GET content ${contentId}: ${last.status} ${JSON.stringify(last.body)}`);
    if (last.body.status === 'completed') return last.body;
    if (last.body.status === 'failed') throw new Error(`content ${contentId} failed: ${String(last.body.error)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`content ${contentId} not completed within ${PROCESSING_WAIT_MS} ms: ${JSON.stringify(last?.body)}`);
}

async function createCollection(lore: LoreUnderTest, token: string, body: Record<string, unknown> = {}): Promise<any> {
  const reply = await call(lore, 'POST', '/api/v1/collections', { token, body: { name: unique('col'), ...body } });
  if (reply.status !== 201) throw new Error(`create collection: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

async function addContent(lore: LoreUnderTest, token: string, body: Record<string, unknown>): Promise<any> {
  const reply = await call(lore, 'POST', '/api/v1/contents', { token, body });
  if (reply.status !== 201) throw new Error(`create content: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

async function search(lore: LoreUnderTest, token: string, body: Record<string, unknown>): Promise<Reply> {
  return call(lore, 'POST', '/api/v1/collections/search', { token, body });
}

const SEARCH_TYPES = ['vector', 'keyword', 'hybrid'] as const;
/** `{a:{a:…1}}` with `levels` objects. */
const nested = (levels: number): Record<string, unknown> => (levels <= 1 ? { a: 1 } : { a: nested(levels - 1) });
const ids = (results: Array<{ content_id: string }>): string[] => [...new Set(results.map((r) => r.content_id))].sort();
const locs = (reply: Reply): unknown[] => (Array.isArray(reply.body?.detail) ? reply.body.detail.map((d: { loc: unknown }) => d.loc) : []);

/** Five short texts on distinct topics; each contains "lorefact" so that one keyword query matches them all. */
const TOPICS = {
  coffee: {
    text: 'lorefact The espresso machine needs descaling with citric acid every month so the coffee keeps tasting good.',
    metadata: { topic: 'coffee', year: 2019, tags: ['drink', 'kitchen'], reviewed: true },
    source: 'https://example.test/coffee',
  },
  kubernetes: {
    text: 'lorefact Kubernetes schedules pods onto cluster nodes according to their CPU and memory resource requests.',
    metadata: { topic: 'kubernetes', year: 2021, tags: ['software'] },
    source: 'https://example.test/kubernetes',
  },
  biology: {
    text: 'lorefact Photosynthesis in green plants turns sunlight, water and carbon dioxide into glucose and oxygen.',
    metadata: { topic: 'biology', year: 2022, tags: ['science', 'plants'] },
    source: 'https://example.test/biology',
  },
  history: {
    text: 'lorefact The Peace of Westphalia, signed in 1648, ended the Thirty Years War in central Europe.',
    metadata: { topic: 'history', year: 2020, tags: ['europe'] },
    source: 'https://example.test/history',
  },
  sport: {
    text: 'lorefact Marathon runners build endurance with long slow runs, interval training and careful pacing.',
    metadata: { topic: 'sport', year: 2023, tags: ['drink', 'health'] },
    source: 'https://example.test/sport',
  },
} as const;
type Topic = keyof typeof TOPICS;

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

    describe('contents', () => {
      let me: Owner;
      let col: any;
      beforeAll(async () => {
        me = await owner(lore());
        col = await createCollection(lore(), me.token, { name: 'Uploads' });
      });

      it('accepts a JSON content as new and processes it in the background to completed', async () => {
        const created = await call(lore(), 'POST', '/api/v1/contents', {
          token: me.token,
          body: { collection_id: col.id, name: 'tea.txt', text: 'Green tea is steamed, black tea is oxidised.', metadata: { lang: 'en' }, source: 'notes://tea' },
        });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({ collection_id: col.id, workspace_id: me.workspace, name: 'tea.txt', source: 'notes://tea', mime_type: 'text/plain', metadata: { lang: 'en' }, status: 'new', chunk_count: 0 });
        expect(created.body.size).toBe(Buffer.byteLength('Green tea is steamed, black tea is oxidised.'));
        const done = await waitCompleted(lore(), me.token, created.body.id);
        expect(done.chunk_count).toBeGreaterThanOrEqual(1);
        expect(done.error).toBeNull();
        expect(Date.parse(done.processed_at)).not.toBeNaN();
        const chunks = await call(lore(), 'GET', `/chunks?content_id=${created.body.id}`, { token: me.token });
        expect(chunks.body.chunks).toHaveLength(done.chunk_count);
        expect(chunks.body.chunks[0]).toMatchObject({ content_id: created.body.id, collection_id: col.id, content: expect.stringContaining('Green tea'), chunk_index: 0, metadata: expect.objectContaining({ lang: 'en' }) });
      });

      it('refuses a content for an unknown collection and invalid bodies with 422', async () => {
        const cases: Array<[unknown, Array<string | number>]> = [
          [{ collection_id: col.id, name: 'x' }, ['body', 'text']],
          [{ collection_id: col.id, name: 'x', text: '' }, ['body', 'text']],
          [{ collection_id: col.id, name: 'x', text: ' \n\t ' }, ['body', 'text']],
          [{ collection_id: col.id, text: 'x' }, ['body', 'name']],
          [{ name: 'x', text: 'x' }, ['body', 'collection_id']],
          [{ collection_id: unique('col'), name: 'x', text: 'x' }, ['body', 'collection_id']],
          [{ collection_id: col.id, name: 'x', text: 'x', metadata: 'nope' }, ['body', 'metadata']],
          // Deeper than a vector point's payload may nest: refused up front, never stored to stall indexing.
          [{ collection_id: col.id, name: 'x', text: 'x', metadata: nested(33) }, ['body', 'metadata']],
        ];
        for (const [body, loc] of cases) {
          const reply = await call(lore(), 'POST', '/api/v1/contents', { token: me.token, body });
          expect({ body, status: reply.status }).toEqual({ body, status: 422 });
          expect(locs(reply)).toContainEqual(loc);
        }
      });

      it('uploads .md, .html, .csv and .json files as multipart/form-data and makes their text searchable', async () => {
        const files = [
          { name: 'guide.md', type: 'text/markdown', content: '# Guide\n\nThe quixotic platypus swims upstream at dawn.', word: 'platypus', mime: 'text/markdown' },
          { name: 'page.html', type: 'text/html', content: '<html><head><title>Page</title></head><body><p>The <b>wombat</b> digs burrows at night.</p></body></html>', word: 'wombat', mime: 'text/html' },
          { name: 'table.csv', type: 'text/csv', content: 'animal,habitat\nnarwhal,arctic ocean\nemu,outback\n', word: 'narwhal', mime: 'text/csv' },
          { name: 'data.json', type: 'application/json', content: JSON.stringify({ animal: 'axolotl', habitat: 'lake xochimilco' }), word: 'axolotl', mime: 'application/json' },
        ];
        const uploaded: Array<{ id: string; word: string; name: string }> = [];
        for (const file of files) {
          const reply = await upload(lore(), '/api/v1/contents', {
            token: me.token,
            file,
            fields: { collection_id: col.id, metadata: JSON.stringify({ kind: file.name.split('.')[1], nested: { ok: true } }) },
          });
          expect({ file: file.name, status: reply.status, body: reply.body }).toMatchObject({ file: file.name, status: 201 });
          expect(reply.body).toMatchObject({ name: file.name, source: file.name, mime_type: file.mime, status: 'new', metadata: { kind: file.name.split('.')[1], nested: { ok: true } } });
          uploaded.push({ id: reply.body.id, word: file.word, name: file.name });
        }
        for (const { id, word, name } of uploaded) {
          await waitCompleted(lore(), me.token, id);
          const chunks = (await call(lore(), 'GET', `/chunks?content_id=${id}`, { token: me.token })).body.chunks as Array<{ content: string }>;
          const text = chunks.map((c) => c.content).join(' ');
          expect({ name, found: text.includes(word) }).toEqual({ name, found: true });
          expect(text).not.toMatch(/<\/?(p|b|html|body)>/);
          const hits = await search(lore(), me.token, { collection_id: col.id, query: word, search_type: 'keyword' });
          expect({ name, ids: ids(hits.body.results) }).toEqual({ name, ids: [id] });
        }
        for (const kind of ['md', 'csv']) {
          const filtered = await search(lore(), me.token, { collection_id: col.id, query: 'animal', filters: { 'metadata.kind': kind, 'metadata.nested.ok': true } });
          expect(filtered.body.results.map((r: { content_name: string }) => r.content_name)).toEqual([kind === 'md' ? 'guide.md' : 'table.csv']);
        }
        const named = await upload(lore(), '/api/v1/contents', {
          token: me.token,
          file: { name: 'n.txt', type: 'text/plain', content: 'plain words' },
          fields: { collection_id: col.id, name: 'Custom name', source: 'https://example.test/n' },
        });
        expect(named.status).toBe(201);
        expect(named.body).toMatchObject({ name: 'Custom name', source: 'https://example.test/n', metadata: {} });
        await waitCompleted(lore(), me.token, named.body.id);
      });

      it('refuses unsupported files, bad metadata and a missing file with 422', async () => {
        const exe = await upload(lore(), '/api/v1/contents', { token: me.token, file: { name: 'tool.exe', type: 'application/octet-stream', content: 'MZ binary' }, fields: { collection_id: col.id } });
        expect(exe.status).toBe(422);
        expect(locs(exe)).toContainEqual(['body', 'file']);
        const badMeta = await upload(lore(), '/api/v1/contents', { token: me.token, file: { name: 'a.txt', type: 'text/plain', content: 'text' }, fields: { collection_id: col.id, metadata: '{not json' } });
        expect(badMeta.status).toBe(422);
        expect(locs(badMeta)).toContainEqual(['body', 'metadata']);
        const arrayMeta = await upload(lore(), '/api/v1/contents', { token: me.token, file: { name: 'a.txt', type: 'text/plain', content: 'text' }, fields: { collection_id: col.id, metadata: '[1,2]' } });
        expect(arrayMeta.status).toBe(422);
        const noCollection = await upload(lore(), '/api/v1/contents', { token: me.token, file: { name: 'a.txt', type: 'text/plain', content: 'text' } });
        expect(noCollection.status).toBe(422);
        expect(locs(noCollection)).toContainEqual(['body', 'collection_id']);
      });

      it('answers an upload over the limit (20 MB by default) with 413', async () => {
        const boundary = `----lore${Math.random().toString(36).slice(2)}`;
        const head = Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="collection_id"\r\n\r\n${col.id}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
        );
        const body = Buffer.concat([head, Buffer.alloc(21 * 1024 * 1024, 'a'), Buffer.from(`\r\n--${boundary}--\r\n`)]);
        const headers = { authorization: `Bearer ${me.token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) };
        const reply = await rawCall(lore(), 'POST', '/api/v1/contents', { headers, body });
        expect(reply.status).toBe(413);
        expect(reply.body).toEqual({ detail: expect.any(String) });
        expect((await call(lore(), 'GET', `/contents?collection_id=${col.id}&limit=1000`, { token: me.token })).body.contents.map((c: { name: string }) => c.name)).not.toContain('big.txt');
      }, 60_000);

      it('lists contents at /contents and /api/v1/contents with filters, sort and a total count', async () => {
        const you = await owner(lore());
        const mine = await createCollection(lore(), you.token);
        const other = await createCollection(lore(), you.token);
        const made = [];
        for (const [name, text] of [['b-medium', 'x'.repeat(20)], ['a-large', 'y'.repeat(40)], ['c-small', 'z'.repeat(10)]] as const) {
          made.push(await addContent(lore(), you.token, { collection_id: mine.id, name, text }));
        }
        const elsewhere = await addContent(lore(), you.token, { collection_id: other.id, name: 'elsewhere', text: 'other collection' });
        for (const c of [...made, elsewhere]) await waitCompleted(lore(), you.token, c.id);
        const names = (reply: Reply): string[] => reply.body.contents.map((c: { name: string }) => c.name);
        for (const base of ['/contents', '/api/v1/contents']) {
          const all = await call(lore(), 'GET', base, { token: you.token });
          expect(all.status).toBe(200);
          expect(all.body.total_count).toBe(4);
          const inMine = await call(lore(), 'GET', `${base}?collection_id=${mine.id}`, { token: you.token });
          expect(inMine.body.total_count).toBe(3);
          expect(inMine.body.contents.every((c: { collection_id: string }) => c.collection_id === mine.id)).toBe(true);
          expect(names(await call(lore(), 'GET', `${base}?collection_id=${mine.id}&sort_by=name&sort_order=asc`, { token: you.token }))).toEqual(['a-large', 'b-medium', 'c-small']);
          expect(names(await call(lore(), 'GET', `${base}?collection_id=${mine.id}&sort_by=name&sort_order=desc`, { token: you.token }))).toEqual(['c-small', 'b-medium', 'a-large']);
          expect(names(await call(lore(), 'GET', `${base}?collection_id=${mine.id}&sort_by=size&sort_order=asc`, { token: you.token }))).toEqual(['c-small', 'b-medium', 'a-large']);
          expect(names(await call(lore(), 'GET', `${base}?collection_id=${mine.id}&sort_by=created_at&sort_order=asc`, { token: you.token }))).toEqual(['b-medium', 'a-large', 'c-small']);
          expect(names(await call(lore(), 'GET', `${base}?collection_id=${mine.id}&sort_by=created_at&sort_order=desc`, { token: you.token }))).toEqual(['c-small', 'a-large', 'b-medium']);
          const paged = await call(lore(), 'GET', `${base}?collection_id=${mine.id}&sort_by=name&sort_order=asc&skip=1&limit=1`, { token: you.token });
          expect(names(paged)).toEqual(['b-medium']);
          expect(paged.body.total_count).toBe(3);
          expect((await call(lore(), 'GET', `${base}?status=completed`, { token: you.token })).body.total_count).toBe(4);
          expect((await call(lore(), 'GET', `${base}?status=new`, { token: you.token })).body.total_count).toBe(0);
          for (const bad of ['?status=done', '?sort_by=color', '?sort_order=up', '?limit=0', '?limit=1001', '?skip=-1']) {
            const reply = await call(lore(), 'GET', `${base}${bad}`, { token: you.token });
            expect({ bad, status: reply.status }).toEqual({ bad, status: 422 });
          }
          expect((await call(lore(), 'GET', `${base}?collection_id=${unique('col')}`, { token: you.token })).status).toBe(404);
        }
      });

      it('deletes a content and its chunks disappear from every search', async () => {
        const marker = `quillon${Math.random().toString(36).slice(2, 8)}`;
        const text = `The ${marker} glassblower shapes molten sand into vases.`;
        const doomed = await addContent(lore(), me.token, { collection_id: col.id, name: 'doomed', text });
        await waitCompleted(lore(), me.token, doomed.id);
        const statsBefore = (await call(lore(), 'GET', `/api/v1/collections/${col.id}`, { token: me.token })).body.stats;
        const chunkIds = (await call(lore(), 'GET', `/chunks?content_id=${doomed.id}`, { token: me.token })).body.chunks.map((c: { id: string }) => c.id);
        expect((await search(lore(), me.token, { collection_id: col.id, query: marker, search_type: 'keyword' })).body.results.map((r: { content_id: string }) => r.content_id)).toContain(doomed.id);

        const deleted = await call(lore(), 'DELETE', `/api/v1/contents/${doomed.id}`, { token: me.token });
        expect(deleted.status).toBe(200);
        expect((await call(lore(), 'GET', `/api/v1/contents/${doomed.id}`, { token: me.token })).status).toBe(404);
        expect((await call(lore(), 'GET', `/api/v1/collections/${col.id}`, { token: me.token })).body.stats).toEqual({
          content_count: statsBefore.content_count - 1,
          chunk_count: statsBefore.chunk_count - chunkIds.length,
          total_bytes: statsBefore.total_bytes - Buffer.byteLength(text),
        });
        for (const id of chunkIds) expect((await call(lore(), 'GET', `/api/v1/chunks/${id}`, { token: me.token })).status).toBe(404);
        for (const search_type of SEARCH_TYPES) {
          const reply = await search(lore(), me.token, { collection_id: col.id, query: search_type === 'keyword' ? marker : text, search_type, max_results: 100 });
          expect(reply.status).toBe(200);
          expect(reply.body.results.map((r: { content_id: string }) => r.content_id)).not.toContain(doomed.id);
        }
        expect((await call(lore(), 'DELETE', `/api/v1/contents/${doomed.id}`, { token: me.token })).status).toBe(404);
      });

      it('reprocesses a content: back to new, then completed again', async () => {
        const content = await addContent(lore(), me.token, { collection_id: col.id, name: 'again', text: 'Sourdough starters need regular feeding with flour and water.' });
        const first = await waitCompleted(lore(), me.token, content.id);
        const reprocessed = await call(lore(), 'POST', `/api/v1/contents/${content.id}/reprocess`, { token: me.token });
        expect(reprocessed.status).toBe(200);
        expect(reprocessed.body).toMatchObject({ id: content.id, status: 'new', error: null });
        const second = await waitCompleted(lore(), me.token, content.id);
        expect(second.chunk_count).toBe(first.chunk_count);
        expect(second.attempts).toBeGreaterThan(first.attempts);
        const hits = await search(lore(), me.token, { collection_id: col.id, query: 'sourdough', search_type: 'keyword' });
        expect(ids(hits.body.results)).toEqual([content.id]);
        expect((await call(lore(), 'POST', `/api/v1/contents/${unique('cnt')}/reprocess`, { token: me.token })).status).toBe(404);
      });
    });

    describe('chunks', () => {
      let me: Owner;
      let col: any;
      let long: any;
      let short: any;
      beforeAll(async () => {
        me = await owner(lore());
        col = await createCollection(lore(), me.token, { name: 'Chunky', settings: { chunk_size: 32, chunk_overlap: 4 } });
        const sentences = [
          'Rivers carve valleys over thousands of years.',
          'Glaciers grind mountains into fine silt and gravel.',
          'Volcanoes build islands from cooling lava flows.',
          'Wind shapes desert dunes into long crescent ridges.',
          'Ocean waves wear cliffs down into sandy beaches.',
          'Earthquakes lift coastlines and open deep rifts.',
        ];
        long = await addContent(lore(), me.token, { collection_id: col.id, name: 'geology', text: sentences.join(' '), metadata: { subject: 'geology' } });
        short = await addContent(lore(), me.token, { collection_id: col.id, name: 'short', text: 'Bees pollinate flowers.' });
        await waitCompleted(lore(), me.token, long.id);
        await waitCompleted(lore(), me.token, short.id);
      }, 60_000);

      it('lists chunks at /chunks and /api/v1/chunks, filtered by collection and content', async () => {
        for (const base of ['/chunks', '/api/v1/chunks']) {
          const all = await call(lore(), 'GET', `${base}?collection_id=${col.id}`, { token: me.token });
          expect(all.status).toBe(200);
          expect(all.body).toMatchObject({ next_cursor: null, has_more: false });
          const chunks = all.body.chunks as Array<Record<string, any>>;
          expect(chunks.length).toBeGreaterThanOrEqual(3);
          for (const chunk of chunks) {
            expect(chunk).toMatchObject({ id: expect.any(String), collection_id: col.id, content: expect.any(String), metadata: expect.any(Object), chunk_index: expect.any(Number), size_bytes: Buffer.byteLength(chunk.content) });
            expect(Date.parse(chunk.created_at)).not.toBeNaN();
            expect(chunk).not.toHaveProperty('embedding');
          }
          const ofLong = await call(lore(), 'GET', `${base}?content_id=${long.id}`, { token: me.token });
          expect(ofLong.body.chunks.length).toBeGreaterThanOrEqual(2);
          expect(ofLong.body.chunks.map((c: { chunk_index: number }) => c.chunk_index)).toEqual(ofLong.body.chunks.map((_: unknown, i: number) => i));
          expect(ofLong.body.chunks.every((c: { content_id: string }) => c.content_id === long.id)).toBe(true);
          const ofShort = await call(lore(), 'GET', `${base}?collection_id=${col.id}&content_id=${short.id}`, { token: me.token });
          expect(ofShort.body.chunks.map((c: { content: string }) => c.content)).toEqual(['Bees pollinate flowers.']);
          expect(chunks.length).toBe(ofLong.body.chunks.length + 1);
          expect((await call(lore(), 'GET', `${base}?collection_id=${unique('col')}`, { token: me.token })).status).toBe(404);
        }
      });

      it('walks cursor pages to the end without duplicates or gaps', async () => {
        const all = (await call(lore(), 'GET', `/chunks?collection_id=${col.id}`, { token: me.token })).body.chunks.map((c: { id: string }) => c.id);
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let page = 0; page < 50; page++) {
          const query: string = `/chunks?collection_id=${col.id}&limit=1${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
          const reply = await call(lore(), 'GET', query, { token: me.token });
          expect(reply.status).toBe(200);
          expect(reply.body.chunks).toHaveLength(1);
          seen.push(reply.body.chunks[0].id);
          expect(reply.body.has_more).toBe(reply.body.next_cursor !== null);
          cursor = reply.body.next_cursor;
          if (cursor === null) break;
        }
        expect(cursor).toBeNull();
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual(all);
        for (const bad of ['limit=0', 'limit=501', 'limit=abc']) {
          const reply = await call(lore(), 'GET', `/chunks?collection_id=${col.id}&${bad}`, { token: me.token });
          expect({ bad, status: reply.status }).toEqual({ bad, status: 422 });
          expect(reply.body.detail[0].loc).toEqual(['query', 'limit']);
        }
        expect((await call(lore(), 'GET', `/chunks?collection_id=${col.id}&limit=500`, { token: me.token })).status).toBe(200);
      });

      it('includes 384-number embeddings only when asked, and gets one chunk', async () => {
        const withVectors = await call(lore(), 'GET', `/api/v1/chunks?content_id=${long.id}&include_embedding=true`, { token: me.token });
        for (const chunk of withVectors.body.chunks) {
          expect(chunk.embedding).toHaveLength(384);
          expect(chunk.embedding.every((x: unknown) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
        }
        const [first] = withVectors.body.chunks;
        const got = await call(lore(), 'GET', `/api/v1/chunks/${first.id}`, { token: me.token });
        expect(got.status).toBe(200);
        const { embedding, ...rest } = first;
        expect(got.body).toEqual(rest);
        const gotWith = await call(lore(), 'GET', `/api/v1/chunks/${first.id}?include_embedding=true`, { token: me.token });
        expect(gotWith.body.embedding).toEqual(embedding);
        expect((await call(lore(), 'GET', `/api/v1/chunks?content_id=${long.id}&include_embedding=false`, { token: me.token })).body.chunks[0]).not.toHaveProperty('embedding');
        expect((await call(lore(), 'GET', `/api/v1/chunks/${first.id}x`, { token: me.token })).status).toBe(404);
      });

      it('re-embeds a changed chunk before answering: vector and keyword search find the new text at once', async () => {
        const target = (await call(lore(), 'GET', `/chunks?content_id=${short.id}&include_embedding=true`, { token: me.token })).body.chunks[0];
        const word = `frobnizzle${Math.random().toString(36).slice(2, 8)}`;
        const content = `Tectonic ${word} plates drift a few centimetres every year.`;
        const patched = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { content } });
        expect(patched.status).toBe(200);
        expect(patched.body).toMatchObject({ id: target.id, content_id: short.id, content, chunk_index: 0, size_bytes: Buffer.byteLength(content) });
        const keyword = await search(lore(), me.token, { collection_id: col.id, query: word, search_type: 'keyword' });
        expect(keyword.body.results.map((r: { chunk_id: string }) => r.chunk_id)).toEqual([target.id]);
        expect(keyword.body.results[0].content).toBe(content);
        const vector = await search(lore(), me.token, { collection_id: col.id, query: content, search_type: 'vector' });
        expect(vector.body.results[0]).toMatchObject({ chunk_id: target.id, content });
        expect(vector.body.results[0].score).toBeGreaterThan(0.99);
        const old = await search(lore(), me.token, { collection_id: col.id, query: 'pollinate', search_type: 'keyword' });
        expect(old.body.results).toEqual([]);
        const after = await call(lore(), 'GET', `/api/v1/chunks/${target.id}?include_embedding=true`, { token: me.token });
        expect(after.body.content).toBe(content);
        expect(after.body.embedding).not.toEqual(target.embedding);
      });

      it('keeps the embedding of a metadata-only change, and its metadata is filterable at once', async () => {
        const target = (await call(lore(), 'GET', `/chunks?content_id=${long.id}&include_embedding=true`, { token: me.token })).body.chunks[1];
        const patched = await call(lore(), 'PATCH', `/api/v1/chunks/${target.id}`, { token: me.token, body: { metadata: { reviewed: 'yes', score: 7 } } });
        expect(patched.status).toBe(200);
        expect(patched.body).toMatchObject({ id: target.id, content: target.content, metadata: { reviewed: 'yes', score: 7 } });
        const after = await call(lore(), 'GET', `/api/v1/chunks/${target.id}?include_embedding=true`, { token: me.token });
        expect(after.body.embedding).toEqual(target.embedding);
        expect(after.body.metadata).toEqual({ reviewed: 'yes', score: 7 });
        for (const search_type of SEARCH_TYPES) {
          const hits = await search(lore(), me.token, { collection_id: col.id, query: target.content, search_type, filters: { 'metadata.reviewed': 'yes' } });
          expect(hits.body.results.map((r: { chunk_id: string }) => r.chunk_id)).toEqual([target.id]);
          expect(hits.body.results[0].metadata).toEqual({ reviewed: 'yes', score: 7 });
        }
        const empty = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: {} });
        expect(empty.status).toBe(422);
        const badMeta = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { metadata: [1] } });
        expect(badMeta.status).toBe(422);
        expect(locs(badMeta)).toContainEqual(['body', 'metadata']);
        const deep = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { metadata: nested(33) } });
        expect(deep.status).toBe(422);
        expect(locs(deep)).toContainEqual(['body', 'metadata']);
        const deepest = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { metadata: nested(32) } });
        expect(deepest.status).toBe(200);
        const restored = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { metadata: { reviewed: 'yes', score: 7 } } });
        expect(restored.status).toBe(200);
        expect((await call(lore(), 'PATCH', `/chunks/${target.id}x`, { token: me.token, body: { content: 'x' } })).status).toBe(404);
      });

      it('deletes a chunk', async () => {
        const chunks = (await call(lore(), 'GET', `/chunks?content_id=${long.id}`, { token: me.token })).body.chunks as Array<{ id: string; content: string }>;
        const target = chunks[chunks.length - 1]!;
        const deleted = await call(lore(), 'DELETE', `/api/v1/chunks/${target.id}`, { token: me.token });
        expect(deleted.status).toBe(200);
        expect((await call(lore(), 'GET', `/api/v1/chunks/${target.id}`, { token: me.token })).status).toBe(404);
        const left = (await call(lore(), 'GET', `/chunks?content_id=${long.id}`, { token: me.token })).body.chunks.map((c: { id: string }) => c.id);
        expect(left).toEqual(chunks.slice(0, -1).map((c) => c.id));
        for (const search_type of SEARCH_TYPES) {
          const hits = await search(lore(), me.token, { collection_id: col.id, query: target.content, search_type, max_results: 100 });
          expect(hits.body.results.map((r: { chunk_id: string }) => r.chunk_id)).not.toContain(target.id);
        }
        expect((await call(lore(), 'DELETE', `/api/v1/chunks/${target.id}`, { token: me.token })).status).toBe(404);
      });
    });

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
