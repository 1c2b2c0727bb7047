import { tierUpSooner } from '@lore/platform/runtime';
import { startStandalone } from './bootstrap';

tierUpSooner();

startStandalone().catch((error: unknown) => {
  process.stderr.write(`Lore failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
