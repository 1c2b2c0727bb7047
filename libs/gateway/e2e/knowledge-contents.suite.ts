import { call, unique, upload, type LoreUnderTest, type Reply } from './e2e-client';
import { rawCall } from './errors.suite';
import { owner, waitCompleted, createCollection, addContent, search, SEARCH_TYPES, nested, ids, locs, type Owner } from './knowledge-fixtures';

/** Contents over HTTP: JSON and file uploads, processing, lists, deletion, reprocess (part of the knowledge suite). */
export function describeKnowledgeContents(lore: () => LoreUnderTest): void {
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
      // Values the metadata could not keep as sent: 422 at the value, as in a JSON body.
      for (const [metadata, loc] of [
        ['{"n":9007199254740993}', ['body', 'metadata', 'n']],
        ['{"a":[1e999]}', ['body', 'metadata', 'a', 0]],
        ['{"s":"\\ud800"}', ['body', 'metadata', 's']],
      ] as const) {
        const unkeepable = await upload(lore(), '/api/v1/contents', { token: me.token, file: { name: 'a.txt', type: 'text/plain', content: 'text' }, fields: { collection_id: col.id, metadata } });
        expect({ metadata, status: unkeepable.status, locs: locs(unkeepable) }).toEqual({ metadata, status: 422, locs: [loc] });
      }
      const noCollection = await upload(lore(), '/api/v1/contents', { token: me.token, file: { name: 'a.txt', type: 'text/plain', content: 'text' } });
      expect(noCollection.status).toBe(422);
      expect(locs(noCollection)).toContainEqual(['body', 'collection_id']);
    });

    it('locates a refusal of the text extracted from an upload at the file, never at an internal field', async () => {
      // 600 KB of JSON whose text (one `path: value` line per leaf) is over 30 MB: past the limit.
      const key = 'k'.repeat(100);
      const content = JSON.stringify({ [key]: new Array<number>(300_000).fill(1) });
      const reply = await upload(lore(), '/api/v1/contents', { token: me.token, file: { name: 'wide.json', type: 'application/json', content }, fields: { collection_id: col.id } });
      expect(reply.status).toBe(422);
      expect(locs(reply)).toEqual([['body', 'file']]);
      expect(JSON.stringify(reply.body)).not.toMatch(/sizeBytes|"message"/);
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

    it('answers a form with a second file, more fields than an upload holds, or a file name over 255 characters with one 422', async () => {
      const boundary = `----lore${Math.random().toString(36).slice(2)}`;
      const part = (name: string, value: string, filename?: string): string =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"\r\nContent-Type: text/plain`}\r\n\r\n${value}\r\n`;
      const send = (parts: string[]) =>
        rawCall(lore(), 'POST', '/api/v1/contents', {
          headers: { authorization: `Bearer ${me.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
          body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`),
        });
      const twoFiles = await send([part('collection_id', col.id), part('file', 'one', 'one.txt'), part('file', 'two', 'two.txt')]);
      expect(twoFiles.status).toBe(422);
      expect(locs(twoFiles)).toEqual([['body', 'file']]);
      const manyFields = await send([part('collection_id', col.id), ...Array.from({ length: 40 }, (_, i) => part(`f${i}`, 'x')), part('file', 'one', 'one.txt')]);
      expect(manyFields.status).toBe(422);
      expect(locs(manyFields)).toEqual([['body']]);
      const longName = await send([part('collection_id', col.id), part('file', 'one', `${'n'.repeat(1000)}.txt`)]);
      expect(longName.status).toBe(422);
      expect(longName.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'file'], msg: expect.stringContaining('at most 255') })]);
    });

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

    it('keeps an uploaded file as it came: downloadable by its owner only, reprocessed from it, gone with its content', async () => {
      // Over 1 MiB of markup around a short text: the file travels in parts, its text is small.
      const html = `<html><head><title>Kept</title></head><body><!-- ${'x'.repeat(1_200_000)} --><p>Bioluminescent plankton glow in the bay — café.</p></body></html>`;
      const uploaded = await upload(lore(), '/api/v1/contents', { token: me.token, file: { name: 'glow été.html', type: 'text/html', content: html }, fields: { collection_id: col.id } });
      expect(uploaded.status).toBe(201);
      expect(uploaded.body.original).toEqual({ file_name: 'glow été.html', content_type: 'text/html', size: Buffer.byteLength(html) });
      const download = await fetch(`${lore().url}/api/v1/contents/${uploaded.body.id}/file`, { headers: { authorization: `Bearer ${me.token}` } });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('text/html');
      expect(download.headers.get('content-disposition')).toBe(`attachment; filename="glow _t_.html"; filename*=UTF-8''${encodeURIComponent('glow été.html')}`);
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(html))).toBe(true);

      const stranger = await owner(lore());
      expect((await call(lore(), 'GET', `/api/v1/contents/${uploaded.body.id}/file`, { token: stranger.token })).status).toBe(404);
      const json = await addContent(lore(), me.token, { collection_id: col.id, name: 'plain', text: 'No file behind this one.' });
      expect(json.original).toBeNull();
      expect((await call(lore(), 'GET', `/api/v1/contents/${json.id}/file`, { token: me.token })).status).toBe(404);

      await waitCompleted(lore(), me.token, uploaded.body.id);
      expect((await call(lore(), 'POST', `/api/v1/contents/${uploaded.body.id}/reprocess`, { token: me.token })).status).toBe(200);
      const again = await waitCompleted(lore(), me.token, uploaded.body.id);
      expect(again.original).toEqual(uploaded.body.original);
      const hits = await search(lore(), me.token, { collection_id: col.id, query: 'bioluminescent plankton', search_type: 'keyword' });
      expect(ids(hits.body.results)).toContain(uploaded.body.id);

      expect((await call(lore(), 'DELETE', `/api/v1/contents/${uploaded.body.id}`, { token: me.token })).status).toBe(200);
      expect((await call(lore(), 'GET', `/api/v1/contents/${uploaded.body.id}/file`, { token: me.token })).status).toBe(404);
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

}
