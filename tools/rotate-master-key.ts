/** `npm run keys:rotate-master [-- --generate]`: see tools/keys/rotate-master-key.ts. */
import { rotateMasterKey } from './keys/rotate-master-key';

rotateMasterKey(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
