/** `npm run parked -- list|retry …`: see tools/parked/parked-events.ts. */
import { parkedEvents } from './parked/parked-events';

parkedEvents(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
