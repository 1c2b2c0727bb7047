import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';

/** Conversations: the list filtered and paged, one conversation as a tree with its branches, the next-turn context. */
describe('console: conversations', () => {
  const lore = useConsole();

  it('lists conversations page by page, filters them, shows one as a tree with its active path and previews the next-turn context', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/conversations');
    await Promise.all(Array.from({ length: 20 }, (_, i) => workspace.lore.conversations.create({ title: `Filler chat ${i}` })));
    const tea = await workspace.lore.conversations.create({ title: 'Brewing tea', tags: ['tea'] });
    const question = await workspace.lore.conversations.append(tea.id, { content: 'Which tea should I brew in the evening?' });
    await workspace.lore.conversations.append(tea.id, { content: 'A caffeine-free rooibos, steeped five minutes in boiling water.', role: 'assistant' });
    // Editing the question makes a sibling: a second branch, which becomes the active path.
    const edited = await workspace.lore.messages.update(question.id, { content: 'Which green tea should I brew in the evening?' });
    await workspace.lore.conversations.append(tea.id, { content: 'A low-caffeine hojicha, at 90 degrees for one minute.', role: 'assistant' });

    await page.getByRole('button', { name: 'Show conversations' }).click();
    const table = page.getByRole('table', { name: 'Conversations' });
    await table.getByRole('button', { name: 'Brewing tea' }).waitFor();
    await expect(table.locator('tbody tr').count()).resolves.toBe(20);
    await page.getByRole('button', { name: 'Load more conversations' }).click();
    await table.locator('tbody tr').nth(20).waitFor();

    // The title filter asks the API, which answers the one conversation.
    await page.getByLabel('Title contains').fill('brewing');
    await page.getByRole('button', { name: 'Show conversations' }).click();
    await table.getByRole('button', { name: 'Filler chat 0' }).waitFor({ state: 'detached' });
    await expect(table.locator('tbody tr').count()).resolves.toBe(1);

    await table.getByRole('button', { name: 'Brewing tea' }).click();
    const detail = page.getByRole('region', { name: 'Brewing tea' });
    await detail.getByText('4 messages · 1 on other branches · active path of 2').waitFor();
    const tree = detail.getByLabel('Messages, every branch');
    await expect(tree.locator('li.on-active-path .message-content').allTextContents()).resolves.toEqual([edited.content, 'A low-caffeine hojicha, at 90 degrees for one minute.']);
    await expect(tree.locator('li.off-path .message-content').allTextContents()).resolves.toEqual(['Which tea should I brew in the evening?', 'A caffeine-free rooibos, steeped five minutes in boiling water.']);
    await expect(tree.getByText('branch 2 of 2').count()).resolves.toBe(1);

    // A tight budget: the context keeps what fits and says what it left out.
    await detail.getByLabel('Token budget').fill('20');
    await detail.getByRole('button', { name: 'Preview context' }).click();
    const preview = detail.getByTestId('context-preview');
    await preview.waitFor();
    await expect(preview.getByText(/^\d+ of 20 tokens ·/).count()).resolves.toBe(1);
    await expectTextSoon(preview.getByTestId('context-omitted'), /Omitted to stay within the budget: [1-9]\d* messages/);

    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'conversations');
    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows the API’s refusal of a bad budget under the context preview', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/conversations');
    const conversation = await workspace.lore.conversations.create({ title: 'Budget' });
    await page.getByRole('button', { name: 'Show conversations' }).click();
    await page.getByRole('button', { name: conversation.title ?? '' }).click();
    const detail = page.getByRole('region', { name: 'Budget' });
    await detail.getByLabel('Token budget').fill('999999');
    // The browser's own max check is skipped by the test (novalidate) so the API's 422 is what shows.
    await detail.locator('form').evaluate((form: { noValidate: boolean }) => {
      form.noValidate = true;
    });
    await detail.getByRole('button', { name: 'Preview context' }).click();
    await expectTextSoon(detail.getByRole('alert'), /^HTTP 422: .*max_tokens/);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
