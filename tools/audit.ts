/** `npm run audit -- [verify] [options]`: see tools/audit/audit.ts. */
import { runAudit } from './audit/audit';

runAudit(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
