import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';

const NOTES = {
  'tea.md': { text: 'Brew green tea with water at 80 degrees for two minutes.', metadata: { topic: 'tea' } },
  'kettle.txt': { text: 'Descale the kettle every month; hard water leaves limescale.', metadata: { topic: 'kettle' } },
  'coffee.md': { text: 'Grind coffee beans just before brewing, with water just off the boil.', metadata: { topic: 'coffee' } },
};

/** The search playground: three search types side by side, fusion controls, filters, timings. */
describe('console: search playground', () => {
  const lore = useConsole();

  it('shows vector, keyword and hybrid hits side by side with sub-scores, ranks and timings; fusion and filters are sent', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/knowledge');
    const collection = await workspace.lore.collections.create({ name: 'Kitchen notes' });
    for (const [name, { text, metadata }] of Object.entries(NOTES)) {
      const content = await workspace.lore.contents.create({ collection_id: collection.id, name, text, metadata });
      await workspace.lore.contents.waitUntilProcessed(content.id);
    }
    await page.goto(`${lore.url}/console/search`);
    await page.getByLabel('Query').fill('water temperature for tea');
    await page.getByLabel('Method').selectOption('rrf');
    await page.getByLabel('k', { exact: true }).fill('20');
    await page.getByRole('button', { name: 'Search', exact: true }).click();

    for (const title of ['Vector', 'Keyword', 'Hybrid']) {
      const column = page.getByRole('region', { name: `${title} results` });
      await column.getByRole('listitem').first().waitFor();
      await column.getByText(/results · API \d+\.\d ms · browser \d+ ms/).waitFor();
    }
    const hybrid = page.getByRole('region', { name: 'Hybrid results' });
    await expect(hybrid.getByRole('listitem').first().getByRole('link').textContent()).resolves.toBe('tea.md');
    await hybrid.getByRole('listitem').first().getByText(/chunk 0 · vector 0\.\d{4} \(rank 1\) · keyword \d+\.\d{4} \(rank 1\)/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'search');
    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });

    // A filter built in the form narrows every column; one the API refuses shows its message.
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Field 1').fill('topic');
    await page.getByLabel('Value 1').fill('kettle');
    await expectTextSoon(page.getByLabel('Filters sent'), /^\{"metadata\.topic":\{"\$eq":"kettle"\}\}$/);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('region', { name: 'Vector results' }).getByText('1 results').waitFor();
    await expect(page.getByRole('region', { name: 'Vector results' }).getByRole('listitem').getByRole('link').allTextContents()).resolves.toEqual(['kettle.txt']);
    await page.getByLabel('Operator 1').selectOption('$gt');
    await page.getByLabel('Value 1').fill('{"a": 1}');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expectTextSoon(page.getByRole('region', { name: 'Keyword results' }).getByRole('alert'), /HTTP 422: filters/);
    // The hit links to its content.
    await page.getByLabel('Operator 1').selectOption('$eq');
    await page.getByLabel('Value 1').fill('tea');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('region', { name: 'Hybrid results' }).getByRole('link', { name: 'tea.md' }).click();
    await page.getByRole('article', { name: 'Chunk 0' }).getByText('Brew green tea').waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
