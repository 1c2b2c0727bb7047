import { connectTestEnv, freePort, startOAuthAuthorizationServer, type OAuthAuthorizationServer } from '@lore/gateway/e2e';
import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';

/**
 * Connect (README, "Connect sessions (OAuth)"): from the catalog through a connect session to the
 * local OAuth 2.0 authorization server of the gateway's e2e tests (GitLab-shaped) and back to the
 * console's connect-result page, which shows the outcome from the session.
 */
describe('console: OAuth connect', () => {
  // Lore's public URL goes into its configuration, so its port is chosen before it starts.
  const env: NodeJS.ProcessEnv = {};
  let oauth: OAuthAuthorizationServer;
  beforeAll(async () => {
    oauth = await startOAuthAuthorizationServer();
    const base = `http://127.0.0.1:${await freePort()}`;
    Object.assign(env, {
      PORT: base.split(':')[2],
      LORE_EGRESS_ALLOW: '127.0.0.1',
      ...connectTestEnv(oauth, base),
      // What a deployment configures for the console: <LORE_PUBLIC_BASE_URL>/console/connections/connect-result.
      CONNECT_REDIRECT_URLS: `${base}/console/connections/connect-result`,
      CONNECTION_HEALTH_INTERVAL_MS: '900000',
    });
  });
  afterAll(() => oauth?.close());
  const lore = useConsole(env);

  it('connects GitLab through the provider with the scopes picked, shows it connected and never a token', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/connections');
    const panel = await openConnect(page);
    // The catalog's scopes come ticked; one is left out.
    for (const scope of ['read_api', 'read_user', 'read_repository']) await expect(panel.getByLabel(scope).isChecked()).resolves.toBe(true);
    await panel.getByLabel('read_repository').uncheck();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'connect');
    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });
    await panel.getByRole('button', { name: 'Continue to GitLab' }).click();

    await page.waitForURL(/\/console\/connections\/connect-result\?/);
    const result = page.getByRole('region', { name: 'Connect result' });
    await expectTextSoon(result.getByTestId('connect-outcome'), /Connected: “GitLab” \(gitlab\) is active/);
    expect(oauth.authorizations.at(-1)?.get('scope')).toBe('read_api read_user');
    const { data } = await workspace.lore.connections.list();
    expect(data).toMatchObject([{ integration: 'gitlab', auth_method_id: 'oauth2', status: 'active' }]);
    await page.getByRole('table', { name: 'Connections' }).locator('tr', { hasText: 'GitLab' }).getByText('active').waitFor();

    const html = await page.content();
    for (const value of oauth.secrets()) expect({ leaked: html.includes(value) || page.url().includes(value) }).toEqual({ leaked: false });
    expect(await seriousViolations(page)).toEqual([]);
    await result.getByRole('link', { name: 'Back to your connections' }).click();
    await result.waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a declined authorization with the API reason, by keyboard, and makes no connection', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/connections');
    const panel = await openConnect(page);
    oauth.nextAuthorization = 'access_denied';
    await panel.getByRole('button', { name: 'Continue to GitLab' }).focus();
    await page.keyboard.press('Enter');

    await page.waitForURL(/\/console\/connections\/connect-result\?.*error=access_denied/);
    const result = page.getByRole('region', { name: 'Connect result' });
    await expectTextSoon(result.getByTestId('connect-outcome'), /Not connected \(access_denied\): .*declined/);
    await expect(workspace.lore.connections.list()).resolves.toMatchObject({ data: [] });
    expect(await seriousViolations(page)).toEqual([]);
    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

/** The catalog's GitLab entry opened: its OAuth panel (next to the token form). */
async function openConnect(page: Awaited<ReturnType<typeof signedInPage>>['page']) {
  await page.getByLabel('Name or tag').fill('gitlab');
  await page.getByRole('button', { name: 'Connect GitLab', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Sign in with GitLab' });
  await panel.waitFor();
  return panel;
}
