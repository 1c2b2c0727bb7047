// The Node flags a build's `npm start` runs it with (the flags of its package.json `start`
// script): benchmarks start each Lore build the way its users do, and a reference build (an
// older checkout) with its own flags. The bare baselines run with Node's defaults.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function startFlags(root = join(import.meta.dirname, '../..')) {
  const script = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts?.start ?? '';
  const words = script.split(/\s+/);
  const node = words.indexOf('node');
  if (node < 0) return [];
  const flags = [];
  for (const word of words.slice(node + 1)) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}
