/** `npm run projections:rebuild -- [name ...]`: see tools/rebuild/rebuild-projections.ts. */
import { rebuildProjections } from './rebuild/rebuild-projections';

rebuildProjections(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
