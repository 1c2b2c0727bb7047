import { LoreClient } from '@lore/client';
import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';

/** API keys: created in the console with permissions, scope, address rules and expiry; used; revoked. */
describe('console: API keys', () => {
  const lore = useConsole();

  it('refuses a bad address rule under its field, creates a key shown once with a copy button, which works until it is revoked', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/api-keys');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: lore.url });
    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Label').fill('reporting job');
    await form.getByRole('checkbox', { name: 'memories:read' }).check();
    await form.getByLabel('Allowed addresses').fill('not-an-address');
    await form.getByRole('button', { name: 'Create key' }).click();
    // The API's 422 is shown under the field it names, not as a banner.
    await form.locator('.field.invalid').filter({ has: page.getByLabel('Allowed addresses') }).locator('.field-error').waitFor();

    await form.getByLabel('Allowed addresses').fill('127.0.0.1/32');
    await form.getByRole('textbox', { name: 'Collections' }).fill('col_reports');
    await form.getByLabel('Expires').fill('2035-06-30T12:00');
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'Key “reporting job” created' });
    const key = (await shown.getByTestId('shown-once-secret').textContent()) ?? '';
    expect(key).toMatch(/^lore_/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByText('Copied').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key);

    const row = page.getByRole('table', { name: 'API keys' }).locator('tr', { hasText: 'reporting job' });
    await expectTextSoon(row, /memories:read.*col_reports.*127\.0\.0\.1\/32/);
    expect(await seriousViolations(page)).toEqual([]);

    // The key works, within its permissions, for the user who created it.
    const withKey = new LoreClient({ baseUrl: lore.url, token: key, retry: { maxRetries: 0 } });
    const user = `user-${workspace.workspace}`;
    await expect(withKey.memories.list({ user_id: user })).resolves.toMatchObject({ data: [] });
    await expect(withKey.conversations.list({ user_id: user })).rejects.toMatchObject({ status: 403 });

    // Once shown, the secret is gone from the page: "Done" hides it for good.
    await shown.getByRole('button', { name: 'Done, hide it' }).click();
    await expect(page.content()).resolves.not.toContain(key.split('.')[1]);
    await screenshot(page, 'api-keys');

    await row.getByRole('button', { name: 'Revoke reporting job' }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    await expect(withKey.memories.list({ user_id: user })).rejects.toMatchObject({ status: 401 });

    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
