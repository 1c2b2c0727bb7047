import type { Locator } from 'playwright-core';
import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';
import { useLoopbackServer } from './loopback-server';

const GOOD_TOKEN = 'good-token-0123456789';
const WRONG_TOKEN = 'wrong-token-9876543210';

/** Connections: the catalog by category, forms generated from JSON Schema refusing bad input inline, tests, edits. */
describe('console: connections', () => {
  // Connection tests go through the egress port, which refuses loopback unless allowed.
  const lore = useConsole({ LORE_EGRESS_ALLOW: '127.0.0.1' });
  // A REST API whose health check wants `Authorization: Bearer <GOOD_TOKEN>` (the catalog's rest-api verification).
  const provider = useLoopbackServer((request, response) => {
    const authorized = request.url === '/health' && request.headers.authorization === `Bearer ${GOOD_TOKEN}`;
    response.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: authorized }));
  });

  it('refuses bad input inline, creates a connection, tests it, rotates its credential and never shows a secret', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/connections');
    await page.getByLabel('Category').selectOption('custom');
    await page.getByRole('button', { name: 'Connect Generic REST API' }).click();
    const form = page.getByRole('region', { name: 'Connect Generic REST API' });
    await form.getByLabel('Authentication').selectOption({ label: 'Bearer token' });
    await form.getByLabel('Base URL').fill('not a url');
    await form.getByRole('button', { name: 'Create connection' }).click();
    // The entry's own schema, checked in the browser: each failed check under its field, nothing sent.
    await expect(fieldErrors(form, 'Base URL')).resolves.toMatch(/does not match format "uri"/);
    await expect(fieldErrors(form, 'Bearer token')).resolves.toMatch(/required/);
    await expect(workspace.lore.connections.list()).resolves.toMatchObject({ data: [] });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'connection-form');

    await form.getByLabel('Label').fill('Billing API');
    await form.getByLabel('Base URL').fill(provider.url);
    await form.getByLabel('Health-check path').fill('/health');
    await form.getByLabel('Bearer token').fill(WRONG_TOKEN);
    await form.getByRole('button', { name: 'Create connection' }).click();
    const row = page.getByRole('table', { name: 'Connections' }).locator('tr', { hasText: 'Billing API' });
    await row.waitFor();

    await row.getByRole('button', { name: 'Test Billing API' }).click();
    await expectTextSoon(page.getByTestId('test-result'), /Test failed.*HTTP 401/);

    // Rotating the credential: the edit form leaves credentials empty (they are never read back).
    await row.getByRole('button', { name: 'Edit Billing API' }).click();
    const edit = page.getByRole('region', { name: 'Edit “Billing API”' });
    await expect(edit.getByLabel('Bearer token').inputValue()).resolves.toBe('');
    await edit.getByLabel('Bearer token').fill(GOOD_TOKEN);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Test Billing API' }).click();
    await expectTextSoon(page.getByTestId('test-result'), /Test passed.*HTTP 200/);
    await expectTextSoon(row, /active/);

    const html = await page.content();
    expect(html).not.toContain(GOOD_TOKEN);
    expect(html).not.toContain(WRONG_TOKEN);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'connections');
    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a check only the API makes (an expired OAuth token) under the field it names', async () => {
    const { page, problems } = await signedInPage(lore, '/connections');
    await page.getByLabel('Category').selectOption('developer_tools');
    await page.getByLabel('Name or tag').fill('github');
    await page.getByRole('button', { name: 'Connect GitHub', exact: true }).click();
    const form = page.getByRole('region', { name: 'Connect GitHub' });
    await form.getByLabel('Authentication').selectOption({ label: 'GitHub OAuth app' });
    await form.getByLabel('Access token').fill('gho_expired-token');
    await form.getByLabel('Expires at').fill('2020-01-01T00:00');
    await form.getByRole('button', { name: 'Create connection' }).click();
    await expect(fieldErrors(form, 'Expires at')).resolves.toMatch(/is in the past .* and no refresh_token is given/);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

/** The errors rjsf shows for the field labelled `label` (its `<id>__error` block, which the input's aria-describedby names). */
async function fieldErrors(form: Locator, label: string): Promise<string> {
  const id = await form.getByLabel(label).getAttribute('id');
  const errors = form.locator(`[id="${id ?? ''}__error"]`);
  await errors.getByRole('listitem').first().waitFor();
  return (await errors.textContent()) ?? '';
}
