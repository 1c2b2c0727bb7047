import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@lore/platform/testing';

/**
 * deploy/compose.yaml promises (and the README repeats) that every variable of the README's
 * configuration table, set in the calling shell, reaches every Lore process. A variable added
 * to the table but not to the file was silently dropped under compose (31 were, connect
 * sessions and reranking among them): this keeps the two lists together.
 */
function configurationTableVariables(readme: string): Set<string> {
  const lines = readme.split('\n');
  const start = lines.indexOf('## Configuration');
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const names = new Set<string>();
  for (const line of lines.slice(start, end)) {
    if (!line.startsWith('| `')) continue;
    // The first column only: `A` / `B` rows name several; the meaning column may mention others.
    for (const match of (line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(match[1]!);
  }
  return names;
}

/** The variables the file sets or passes: the shared block of every Lore service, and the gateway's own (PORT, HOST, LORE_EVENT_ID_SECRET). */
function composeEnvironment(compose: string): Set<string> {
  return new Set([...compose.matchAll(/^ {4,6}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!));
}

describe('deploy/compose.yaml', () => {
  it('passes every variable of the README configuration table to the Lore services', () => {
    const table = configurationTableVariables(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
    const passed = composeEnvironment(readFileSync(join(REPO_ROOT, 'deploy', 'compose.yaml'), 'utf8'));
    expect(table.size).toBeGreaterThan(100);
    expect([...table].filter((name) => !passed.has(name))).toEqual([]);
  });
});
