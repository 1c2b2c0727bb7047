import { runServiceProcess } from '@lore/platform/runtime';
import { KeysModule } from '@lore/keys/nest';

runServiceProcess('keys', KeysModule.register()).catch((error: unknown) => {
  process.stderr.write(`keys service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
