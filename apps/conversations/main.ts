import { runServiceProcess } from '@lore/platform/host';
import { contextNamed } from '../contexts';

runServiceProcess(contextNamed('conversations').service).catch((error: unknown) => {
  process.stderr.write(`conversations service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
