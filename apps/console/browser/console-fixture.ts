import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { chromium, type Browser, type Page } from 'playwright-core';
import { modelsDirForTests } from '@lore/platform/embeddings/contract';
import { REPO_ROOT } from '@lore/platform/testing';
import { LoreClient } from '@lore/client';
import { startStandalone } from '../../standalone/bootstrap';

/** What the standalone verifies JWTs with (AUTH_JWT_SECRET), for specs that mint their own. */
export const JWT_SECRET = 'console-browser-secret';
/** Where the README's screenshots are kept; the tests write them (ARCHITECTURE: regenerated, committed). */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'docs', 'console');
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface FreshWorkspace {
  readonly token: string;
  readonly workspace: string;
  readonly lore: LoreClient;
}

/** One standalone Lore and one Chromium per spec file; each test signs in as a fresh workspace. */
export interface ConsoleUnderTest {
  readonly url: string;
  readonly browser: Browser;
  /**
   * A JWT for a fresh user in a fresh workspace, and an SDK client with it (for setting data
   * up). The user is the workspace's administrator (the console's audience) unless `member`.
   */
  freshWorkspace(options?: { member?: boolean }): Promise<FreshWorkspace>;
}

/**
 * Starts Lore (temporary DATA_DIR, the test models) and Debian's Chromium for a spec file, and
 * stops both after it; `env` goes over the defaults (LORE_EGRESS_ALLOW for a local stand-in…).
 * `npm run test:console` builds the console first (tools/build.mjs), so
 * the gateway serves the current dist/console.
 */
export function useConsole(env: NodeJS.ProcessEnv = {}): ConsoleUnderTest {
  let stopLore: (() => Promise<void>) | undefined;
  const under = {
    url: '',
    browser: undefined as unknown as Browser,
    async freshWorkspace({ member = false }: { member?: boolean } = {}) {
      const workspace = `ws-${Math.random().toString(36).slice(2, 10)}`;
      const token = await new SignJWT({ workspace_id: workspace, ...(member ? {} : { roles: ['admin'] }) }).setProtectedHeader({ alg: 'HS256' }).setSubject(`user-${workspace}`).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(JWT_SECRET));
      return { token, workspace, lore: new LoreClient({ baseUrl: under.url, token }) };
    },
  };
  beforeAll(async () => {
    const lore = await standalone(env);
    stopLore = lore.stop;
    under.url = lore.url;
    under.browser = await chromium.launch({
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 90_000);
  afterAll(async () => {
    await under.browser?.close();
    await stopLore?.();
  });
  return under;
}

/** Lore in this process, as `npm start` runs it, with a temporary DATA_DIR. */
async function standalone(env: NodeJS.ProcessEnv): Promise<{ url: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-console-'));
  const running = await startStandalone({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '', MODELS_DIR: modelsDirForTests(), ...env });
  return {
    url: running.url,
    stop: async () => {
      await running.app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A page of its own (fresh sessionStorage) that records what the console must never do: throw, or break its CSP. */
export async function newPage(lore: ConsoleUnderTest): Promise<{ page: Page; problems: string[] }> {
  const context = await lore.browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return { page, problems };
}

/** Signs in through the sign-in form, then opens `path` (under /console). */
export async function signIn(lore: ConsoleUnderTest, page: Page, token: string, path = '/'): Promise<void> {
  await page.goto(`${lore.url}/console/`);
  await page.getByLabel('API key or JWT').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  if (path !== '/') await page.goto(`${lore.url}/console${path}`);
}

/** A signed-in page on `path` for a fresh workspace, with that workspace's SDK client for setting data up. */
export async function signedInPage(lore: ConsoleUnderTest, path = '/', options: { member?: boolean } = {}): Promise<{ page: Page; problems: string[]; workspace: FreshWorkspace }> {
  const workspace = await lore.freshWorkspace(options);
  const { page, problems } = await newPage(lore);
  await signIn(lore, page, workspace.token, path);
  return { page, problems, workspace };
}
