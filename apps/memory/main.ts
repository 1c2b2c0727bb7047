import { runServiceProcess } from '@lore/platform/runtime';
import { MemoryModule } from '@lore/memory/nest';

runServiceProcess('memory', MemoryModule.register()).catch((error: unknown) => {
  process.stderr.write(`memory service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
