import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { DESKTOP, PHONE, SCREENSHOT_DIR } from './console-fixture';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** One axe-core violation as a test failure names it. */
interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly string[];
}

/**
 * The page's serious and critical accessibility violations (axe-core, WCAG 2.x A/AA rules).
 * axe is evaluated through the DevTools protocol, which the page's CSP does not govern, so the
 * console's CSP stays as strict as it is served.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE_SOURCE);
  // A string: it runs in the page, where `axe` and `document` are (this file is compiled for Node).
  const violations = await page.evaluate<Violation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) })))`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Writes docs/console/<name>.png, the whole page at 1280 px wide, as the README shows it. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), animations: 'disabled', fullPage: true });
}

/**
 * The page at phone size: nothing wider than the screen (no sideways scrolling), the nav
 * folded behind its toggle and opened by it, and still no serious accessibility violation.
 * Leaves the page at desktop size again.
 */
export async function checkPhoneLayout(page: Page): Promise<{ overflow: number; navHiddenFirst: boolean; navShownByToggle: boolean; violations: Violation[] }> {
  await page.setViewportSize(PHONE);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  const nav = page.getByRole('navigation', { name: 'Screens' });
  const navHiddenFirst = !(await nav.isVisible());
  const toggle = page.getByRole('button', { name: 'Menu' });
  await toggle.click();
  // Waited for, not read at once: React may render the opened nav after the click resolves.
  const navShownByToggle = await nav.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false);
  const violations = await seriousViolations(page);
  await toggle.click();
  await page.setViewportSize(DESKTOP);
  return { overflow, navHiddenFirst, navShownByToggle, violations };
}

/**
 * Expects the locator's text to match `pattern` within 10 s (the failure names the text it
 * last had). Reading the text at once races a reply still in flight.
 */
export async function expectTextSoon(locator: Locator, pattern: RegExp): Promise<void> {
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout: 10_000 }).catch(() => undefined);
  expect((await locator.first().textContent()) ?? '').toMatch(pattern);
}
