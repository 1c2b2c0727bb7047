import { runServiceProcess } from '@lore/platform/host';
import { contextNamed } from '../contexts';

runServiceProcess(contextNamed('connections').service).catch((error: unknown) => {
  process.stderr.write(`connections service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
