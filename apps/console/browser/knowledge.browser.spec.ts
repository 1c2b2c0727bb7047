import { screenshot, seriousViolations } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';

/** Knowledge: collections, uploads with live status, contents and chunks. */
describe('console: knowledge', () => {
  const lore = useConsole();

  it('creates a collection, shows the API refusal inline, and lists it with its stats', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/knowledge');
    await workspace.lore.collections.create({ name: 'Handbook', description: 'Company handbook', tags: ['hr'] });
    await page.getByRole('button', { name: 'New collection' }).click();
    const form = page.getByRole('form', { name: 'New collection' });
    await form.getByLabel('Name').fill('Tea notes');
    await form.getByLabel('Chunk overlap (tokens)').fill('-5');
    await form.getByRole('button', { name: 'Create collection' }).click();
    // The 422's issue is shown under the field it names.
    await expect(form.locator('.field.invalid').getByText(/greater than or equal to 0|too small/i).isVisible()).resolves.toBe(true);
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
});
