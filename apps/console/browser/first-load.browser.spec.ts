import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT } from '@lore/platform/testing';

const CONSOLE_DIR = join(REPO_ROOT, 'dist', 'console');
/** Issue 20: the console's JavaScript on first load, gzipped. */
const BUDGET_BYTES = 300 * 1024;

/** The scripts index.html loads (entry and module preloads), by their /console/assets/ names. */
function firstLoadScripts(html: string): string[] {
  const scripts = [...html.matchAll(/<script[^>]*\bsrc="\/console\/assets\/([^"]+\.js)"/g), ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="\/console\/assets\/([^"]+\.js)"/g)];
  return [...new Set(scripts.map((match) => match[1] ?? ''))];
}

describe('console first load', () => {
  it(`loads at most ${BUDGET_BYTES / 1024} KB of JavaScript, gzipped (the built dist/console)`, () => {
    const scripts = firstLoadScripts(readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8'));
    expect(scripts.length).toBeGreaterThan(0);
    const gzipped = scripts.reduce((total, name) => total + gzipSync(readFileSync(join(CONSOLE_DIR, 'assets', name)), { level: 9 }).length, 0);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
