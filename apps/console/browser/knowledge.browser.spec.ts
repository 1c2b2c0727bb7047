import type { Page } from 'playwright-core';
import { until } from '@lore/platform/testing';
import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { newPage, signedInPage, signIn, useConsole } from './console-fixture';

const TEA = '# Green tea\n\nBrew green tea with water at 80 degrees for two minutes; boiling water makes it bitter.\n';
const KETTLE = 'Descale the kettle every month with citric acid, then rinse it twice.\n';

/** Drops files on the upload zone as a browser's drag and drop does (a DataTransfer holding Files). */
async function dropFiles(page: Page, files: Record<string, string>): Promise<void> {
  const transfer = await page.evaluateHandle(`(() => {
    const transfer = new DataTransfer();
    for (const [name, text] of Object.entries(${JSON.stringify(files)})) transfer.items.add(new File([text], name, { type: 'text/plain' }));
    return transfer;
  })()`);
  await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer: transfer });
}

/** Knowledge: collections, uploads with live status, contents and chunks. */
describe('console: knowledge', () => {
  const lore = useConsole();

  /** A signed-in page on a new collection's page (the collection made with the SDK). */
  async function collectionPage(name: string) {
    const signedIn = await signedInPage(lore, '/knowledge');
    const collection = await signedIn.workspace.lore.collections.create({ name });
    await signedIn.page.goto(`${lore.url}/console/knowledge/${collection.id}`);
    return { ...signedIn, collection };
  }

  it('creates a collection, shows the API refusal inline, and lists it with its stats', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/knowledge');
    await workspace.lore.collections.create({ name: 'Handbook', description: 'Company handbook', tags: ['hr'] });
    await page.getByRole('button', { name: 'New collection' }).click();
    const form = page.getByRole('form', { name: 'New collection' });
    await form.getByLabel('Name').fill('Tea notes');
    await form.getByLabel('Chunk overlap (tokens)').fill('-5');
    await form.getByRole('button', { name: 'Create collection' }).click();
    // The 422's issue is shown under the field it names (waited for: the reply arrives after the click resolves).
    await form.locator('.field.invalid').getByText(/greater than or equal to 0|too small/i).waitFor();
    await form.getByLabel('Chunk overlap (tokens)').fill('');
    await form.getByRole('button', { name: 'Create collection' }).click();
    const table = page.getByRole('table', { name: 'Collections' });
    await table.getByRole('link', { name: 'Tea notes' }).waitFor();
    await table.getByRole('link', { name: 'Handbook' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'knowledge-collections');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('pages the collections list (25 at a time, "Load more")', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/knowledge');
    await Promise.all(Array.from({ length: 26 }, (_, i) => workspace.lore.collections.create({ name: `Shelf ${String(i).padStart(2, '0')}` })));
    await page.reload();
    const rows = page.getByRole('table', { name: 'Collections' }).getByRole('row');
    await page.getByRole('button', { name: 'Load more collections' }).waitFor();
    expect(await rows.count()).toBe(1 + 25);
    await page.getByRole('button', { name: 'Load more collections' }).click();
    await rows.nth(26).waitFor();
    expect(await rows.count()).toBe(1 + 26);
    expect(await page.getByRole('button', { name: 'Load more collections' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("pages a content's chunks by cursor (20 at a time)", async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/knowledge');
    const collection = await workspace.lore.collections.create({ name: 'Long notes', settings: { chunk_size: 16, chunk_overlap: 0 } });
    const text = Array.from({ length: 12 }, (_, i) => `Note ${i}: steep the leaves, pour the water, wait a while, then taste the tea carefully.`).join(' ');
    const content = await workspace.lore.contents.create({ collection_id: collection.id, name: 'long.txt', text });
    const processed = await workspace.lore.contents.waitUntilProcessed(content.id);
    expect(processed.chunk_count).toBeGreaterThan(20);
    expect(processed.chunk_count).toBeLessThanOrEqual(40);
    await page.goto(`${lore.url}/console/knowledge/${collection.id}/contents/${content.id}`);
    await page.getByRole('article', { name: 'Chunk 19' }).waitFor();
    expect(await page.getByRole('article').count()).toBe(20);
    await page.getByRole('button', { name: 'Load more chunks' }).click();
    await page.getByRole('article', { name: `Chunk ${processed.chunk_count - 1}` }).waitFor();
    expect(await page.getByRole('article').count()).toBe(processed.chunk_count);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('uploads by drag and drop and by the file input, follows processing live, and the upload is a search hit', async () => {
    const { page, problems } = await collectionPage('Kitchen');
    await page.getByText('Processing status updates live (event stream).').waitFor();
    await dropFiles(page, { 'tea.md': TEA });
    await page.getByLabel('Files to upload').setInputFiles({ name: 'kettle.txt', mimeType: 'text/plain', buffer: Buffer.from(KETTLE) });
    const contents = page.getByRole('table', { name: 'Contents' });
    // Both rows turn `completed` without a reload: the event stream drives the list.
    for (const name of ['tea.md', 'kettle.txt']) await contents.getByRole('row').filter({ hasText: name }).getByText('completed', { exact: true }).waitFor();
    await expectTextSoon(page.locator('dl.facts dd').first(), /^2$/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'knowledge-collection');
    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });

    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Query').fill('how hot should the water be for green tea');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hybrid = page.getByRole('region', { name: 'Hybrid results' });
    await expect(hybrid.getByRole('listitem').first().getByRole('link').textContent()).resolves.toBe('tea.md');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("shows an upload's progress and cancels it; a file Lore cannot read is refused with the API's message", async () => {
    const { page, problems, workspace, collection } = await collectionPage('Inbox');
    // Uploads slowed to 64 KB/s (Chromium's network emulation), so progress is seen part-way.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 64 * 1024 });
    await page.getByLabel('Files to upload').setInputFiles({ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(2 * 1024 * 1024, 'tea leaves ') });
    const progress = page.getByRole('progressbar', { name: 'Uploading big.txt' });
    // Polled from the test (page.waitForFunction would eval in the page, which the console's CSP refuses).
    const sent = await until(() => page.evaluate<[number, number] | null>(`(() => { const bar = document.querySelector('progress[aria-label="Uploading big.txt"]'); return bar && [bar.value, bar.max]; })()`), (bar) => bar !== null && bar[0] > 0);
    expect(sent?.[0]).toBeLessThan(sent?.[1] ?? 0);
    await page.getByRole('button', { name: 'Cancel the upload of big.txt' }).click();
    await page.getByRole('alert').getByText('The upload of big.txt was cancelled').waitFor();
    expect(await progress.count()).toBe(0);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.getByRole('button', { name: 'Dismiss' }).click();

    await page.getByLabel('Files to upload').setInputFiles({ name: 'report.pdf', mimeType: 'application/pdf', buffer: Buffer.from('this is not a PDF') });
    await expectTextSoon(page.getByRole('alert'), /^HTTP 4\d\d: .*PDF/i);
    // (A cancel can come after the browser handed Lore the whole body: big.txt may exist. The refused file never does.)
    expect((await workspace.lore.contents.list({ collection_id: collection.id })).contents.map((c) => c.name)).not.toContain('report.pdf');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('signed in with an API key lacking events:read, says live status is off and follows processing by polling', async () => {
    const workspace = await lore.freshWorkspace();
    const collection = await workspace.lore.collections.create({ name: 'Key-only' });
    const key = await workspace.lore.apiKeys.create({ label: 'console', permissions: ['collections:read', 'collections:write'] });
    const { page, problems } = await newPage(lore);
    await signIn(lore, page, key.key, `/knowledge/${collection.id}`);
    await expectTextSoon(page.getByRole('status').filter({ hasText: 'Live status unavailable' }), /HTTP 403: .*events:read.*refreshing every 2 s/);
    await page.getByLabel('Files to upload').setInputFiles({ name: 'kettle.txt', mimeType: 'text/plain', buffer: Buffer.from(KETTLE) });
    await page.getByRole('table', { name: 'Contents' }).getByRole('row').filter({ hasText: 'kettle.txt' }).getByText('completed', { exact: true }).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('browses a content\'s chunks and edits one in place; reprocesses, downloads and deletes a content', async () => {
    const { page, problems, workspace, collection } = await collectionPage('Pantry');
    const file = await workspace.lore.contents.upload({ collection_id: collection.id, file: new Blob([KETTLE]), filename: 'kettle.txt' });
    await workspace.lore.contents.waitUntilProcessed(file.id);
    await page.reload();
    const row = page.getByRole('table', { name: 'Contents' }).getByRole('row').filter({ hasText: 'kettle.txt' });

    const download = page.waitForEvent('download');
    await row.getByRole('button', { name: 'Download the original of kettle.txt' }).click();
    expect((await download).suggestedFilename()).toBe('kettle.txt');

    await row.getByRole('link', { name: 'kettle.txt' }).click();
    const chunk = page.getByRole('article', { name: 'Chunk 0' });
    await chunk.getByText('Descale the kettle').waitFor();
    await chunk.getByRole('button', { name: 'Edit chunk 0' }).click();
    await chunk.getByLabel('Metadata (JSON)').fill('{not json');
    await chunk.getByRole('button', { name: 'Save chunk' }).click();
    await chunk.getByText(/^Not JSON/).waitFor();
    await chunk.getByLabel('Text').fill('Descale the kettle every week with white vinegar.');
    await chunk.getByLabel('Metadata (JSON)').fill('{"room": "kitchen"}');
    await chunk.getByRole('button', { name: 'Save chunk' }).click();
    await chunk.getByText('Descale the kettle every week with white vinegar.').waitFor();
    // Read models follow the edit shortly after the answer.
    const [saved] = (await until(() => workspace.lore.chunks.list({ content_id: file.id }), (listed) => listed.chunks[0]?.content !== KETTLE.trim())).chunks;
    expect(saved).toMatchObject({ content: 'Descale the kettle every week with white vinegar.', metadata: { room: 'kitchen' } });
    const found = await until(() => workspace.lore.collections.search({ collection_id: collection.id, query: 'white vinegar', search_type: 'keyword' }), (answer) => answer.results.length > 0);
    expect(found.results.map((r) => r.chunk_id)).toEqual([saved?.id]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'knowledge-chunks');

    await page.getByRole('link', { name: '← Collection' }).click();
    await row.getByRole('button', { name: 'Reprocess kettle.txt' }).click();
    await row.getByText('completed', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Delete kettle.txt' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete kettle.txt?' });
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No content yet: upload files above.').waitFor();
    await expect(workspace.lore.contents.get(file.id)).rejects.toMatchObject({ status: 404 });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('edits a collection\'s settings and embedding model, shows a refusal, and deletes the collection', async () => {
    const { page, problems, workspace, collection } = await collectionPage('Drafts');
    await page.getByRole('button', { name: 'Edit settings' }).click();
    const form = page.getByRole('form', { name: 'Collection settings' });
    await form.getByLabel('Embedding model').fill('no-such/model');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.getByRole('alert').waitFor();
    await form.getByLabel('Embedding model').fill('Xenova/all-MiniLM-L6-v2');
    await form.getByLabel('Description').fill('Unfinished texts');
    await form.getByLabel('Chunk size (tokens)').fill('128');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('128 tokens, 32 overlap').waitFor();
    await page.getByText('Unfinished texts').waitFor();
    await page.getByRole('button', { name: 'Delete collection' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete collection' }).click();
    await page.getByRole('heading', { name: 'Knowledge collections' }).waitFor();
    await expect(workspace.lore.collections.get(collection.id)).rejects.toMatchObject({ status: 404 });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
