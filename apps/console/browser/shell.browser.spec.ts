import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { newPage, signedInPage, useConsole } from './console-fixture';

/** The console's shell: served at /console with its CSP, sign-in, nav, sign-out, layouts. */
describe('console shell', () => {
  const lore = useConsole();

  it('refuses a bad credential with the API message, and keeps nothing', async () => {
    const { page, problems } = await newPage(lore);
    await page.goto(`${lore.url}/console/knowledge`);
    await page.getByLabel('API key or JWT').fill('lore_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectTextSoon(page.getByRole('alert'), /HTTP 401: Invalid API key/);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('signs in with a JWT, lands on the first screen, navigates by keyboard and signs out', async () => {
    const { page, problems } = await signedInPage(lore);
    await page.waitForURL(/\/console\/knowledge$/);
    await page.getByRole('heading', { name: 'Knowledge collections' }).waitFor();
    // A reload keeps the session (sessionStorage) and the SPA path (the gateway's fallback).
    await page.reload();
    await page.getByRole('heading', { name: 'Knowledge collections' }).waitFor();
    // The skip link is the first stop of the keyboard, and leads to the screen.
    await page.keyboard.press('Tab');
    await expect(page.evaluate('document.activeElement?.textContent')).resolves.toBe('Skip to content');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key or JWT').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('works on a phone-sized screen: nothing wider than it, the nav behind its toggle', async () => {
    const { page, problems } = await signedInPage(lore, '/knowledge');
    await page.getByRole('heading', { name: 'Knowledge collections' }).waitFor();
    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
