import { until } from '@lore/platform/testing';
import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';

/** Memories: a user's list paged, the history of a replaced memory, search, delete after a confirmation. */
describe('console: memories', () => {
  const lore = useConsole();

  it('lists another user’s memories page by page, shows a memory’s versions, searches them and deletes one after confirming', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/memories');
    // 21 memories: one more than a page of 20.
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => workspace.lore.memories.create({ user_id: 'alice', memory: `Filler note number ${i}`, topics: ['filler'] })));
    const { memory_id: teaId } = await workspace.lore.memories.create({ user_id: 'alice', memory: 'Prefers green tea brewed at 80 degrees', topics: ['tea'] });
    await workspace.lore.memories.replace(teaId, { user_id: 'alice', memory: 'Prefers green tea brewed at 75 degrees' });
    expect(created).toHaveLength(20);

    // The signed-in administrator looks at another user's memories.
    await page.getByLabel('User').fill('alice');
    await page.getByRole('button', { name: 'Show memories' }).click();
    const table = page.getByRole('table', { name: 'Memories of alice' });
    await table.getByText('Prefers green tea brewed at 75 degrees').waitFor();
    await expect(table.locator('tbody tr').count()).resolves.toBe(20);
    await page.getByRole('button', { name: 'Load more memories' }).click();
    await until(() => table.locator('tbody tr').count(), (count) => count === 21);

    // The history of the replaced memory: both versions, oldest first.
    await table.getByRole('button', { name: /^History of “Prefers green tea/ }).click();
    const history = page.getByRole('region', { name: /^History of/ });
    await history.getByText('Version 2').waitFor();
    await expect(history.locator('li').allTextContents()).resolves.toEqual([expect.stringMatching(/Version 1 · created.*80 degrees/), expect.stringMatching(/Version 2 · replaced.*75 degrees/)]);

    await page.getByLabel('Search query').fill('green tea temperature');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hits = page.getByRole('region', { name: 'Search memories' });
    await hits.getByText(/found in \d+ ms/).waitFor();
    await expectTextSoon(hits.locator('li').first(), /Prefers green tea brewed at 75 degrees.*score \d\.\d{3} · vector/);

    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'memories');

    // Delete asks first; Cancel keeps it, Delete removes it from the list and from Lore.
    await table.getByRole('button', { name: /^Delete “Prefers green tea/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this memory?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The second time by keyboard only: Enter on the row's button, the dialog opens on Cancel, Tab to Delete, Enter.
    await table.getByRole('button', { name: /^Delete “Prefers green tea/ }).focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Cancel');
    await page.keyboard.press('Tab');
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Delete');
    await page.keyboard.press('Enter');
    await table.getByText('Prefers green tea brewed at 75 degrees').waitFor({ state: 'detached' });
    await expect(workspace.lore.memories.get(teaId, { user_id: 'alice' })).rejects.toMatchObject({ status: 404 });

    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows the API’s refusal when a member asks for another user’s memories', async () => {
    const { page, problems } = await signedInPage(lore, '/memories', { member: true });
    await page.getByLabel('User').fill('someone-else');
    await page.getByRole('button', { name: 'Show memories' }).click();
    await expectTextSoon(page.getByRole('alert'), /^HTTP 403: /);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
