// `npm run sdk:generate`: regenerates every SDK from the API the code serves, one after the
// other (each generator takes the OpenAPI document from a standalone Lore of its own).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const generators = ['tools/sdk/generate-typescript.mjs', 'tools/sdk/generate-python.mjs'].filter((file) => existsSync(new URL(`../../${file}`, import.meta.url)));
for (const file of generators) execFileSync(process.execPath, [file, ...process.argv.slice(2)], { cwd: new URL('../..', import.meta.url), stdio: 'inherit' });
