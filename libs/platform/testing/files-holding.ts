import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The files under `dir` whose bytes hold `needle` (as UTF-8): what a thief with the disk would find. */
export function filesHolding(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle);
  return filesUnder(dir).filter((file) => readFileSync(file).includes(bytes));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
