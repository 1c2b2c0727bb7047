/**
 * Master key rotation: `npm run keys:rotate-master [-- --generate]`. Re-wraps every data key of
 * every registered context under a new master key (LORE_NEW_MASTER_KEY, or a random one with
 * --generate), recording the new master key version. Run it while Lore is stopped: it opens the
 * keyring stores the services use, as configured by the same environment variables. Resumable:
 * after a crash, running it again with the same keys completes the rotation, and until then Lore
 * refuses to start. Exits 0 when done, 1 with a message otherwise.
 */
import type { Writable } from 'node:stream';
import { envOptional } from '@lore/platform/kernel';
import { loadConfig } from '@lore/platform/runtime';
import { CONTEXTS } from '../../apps/contexts';
import { promoteNextKeyFile, resolveRotationKeys, writeKeyFile, type RotationKeys } from './master-keys';
import { assertLoreStopped, keyringLocation, openKeyringStores, type KeyringStore } from './keyring-stores';
import { finishRotation, inspectKeyring, markRotation, rewrapKeyring, type KeyringPlan } from './keyring-rotation';
import { Progress, type ProgressStream } from './progress';

/** Data keys per read and per write: small enough for one quick SQLite transaction, large enough to amortise the fsync. */
const BATCH_SIZE = 500;

const USAGE = `usage: npm run keys:rotate-master [-- --generate]
Re-wraps every data key under a new master key, while Lore is stopped.
  current key: LORE_MASTER_KEY, or DATA_DIR/master.key
  new key:     LORE_NEW_MASTER_KEY, or --generate for a random one
`;

export interface RotateIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: Pick<Writable, 'write'>;
  readonly stderr: ProgressStream;
}

export interface RotateOptions {
  /** The contexts whose keyrings to rotate; every registered context by default. */
  readonly contexts?: readonly string[];
  readonly batchSize?: number;
  /** Test hook: fail once this many data keys are re-wrapped, as a crash would. */
  readonly failAfter?: number;
  readonly now?: () => number;
}

/** Rotates the master key; resolves to the process exit code. */
export async function rotateMasterKey(args: readonly string[], io: RotateIo, options: RotateOptions = {}): Promise<number> {
  const now = options.now ?? Date.now;
  const started = now();
  const progress = Progress.for(io.stderr, io.env, now);
  let stores: KeyringStore[] = [];
  let changing = false;
  try {
    if (args.includes('--help') || args.includes('-h')) {
      io.stdout.write(USAGE);
      return 0;
    }
    const unknown = args.filter((arg) => arg !== '--generate');
    if (unknown.length > 0) throw new Error(`unknown argument ${unknown.join(' ')}\n${USAGE}`);
    const config = loadConfig(io.env);
    const keys = resolveRotationKeys({
      masterKey: config.masterKey,
      newMasterKey: envOptional.parse(io.env.LORE_NEW_MASTER_KEY),
      dataDir: config.dataDir,
      generate: args.includes('--generate'),
    });
    const contexts = options.contexts ?? CONTEXTS.map((c) => c.service.name);
    if (config.mongoUrl) {
      io.stderr.write('MongoDB keyrings: whether Lore is running cannot be told from here; every Lore service must be stopped now.\n');
    }
    assertLoreStopped(config, contexts);
    stores = await openKeyringStores(config, contexts);
    if (stores.length === 0) throw new Error(`no keyring found for any context (${contexts.map((c) => keyringLocation(config, c)).join(', ')}): is DATA_DIR (or MONGODB_URL) the one Lore runs with?`);
    // Every keyring is checked before any is changed: a wrong key fails without touching anything.
    const plans: KeyringPlan[] = [];
    for (const store of stores) plans.push(await inspectKeyring(store, keys, keys.files?.current ?? 'LORE_MASTER_KEY'));
    const resumingFile = keys.nextSource === 'master.key.next';
    if (!resumingFile && plans.every((plan) => plan.state === 'done' && plan.pending === 0)) {
      throw new Error('every keyring is already wrapped by the new master key: the rotation is complete. Start Lore with the new key as LORE_MASTER_KEY.');
    }

    if (keys.files !== null && !resumingFile) writeKeyFile(keys.files.next, keys.next);
    if (keys.files === null && keys.nextSource === 'generated') {
      // Before any keyring changes: should this run crash, the key it started re-wrapping with is on record.
      io.stdout.write(`New master key (generated; shown only this once, store it in your secret store now, nothing can be read without it):\n${keys.next.toString('base64')}\n`);
    }
    changing = true;
    for (const plan of plans) await markRotation(plan, keys);

    const budget = options.failAfter === undefined ? undefined : { remaining: options.failAfter };
    let rewrapped = 0;
    for (const plan of plans) {
      progress.start(plan.store.context, plan.pending);
      const count = await rewrapKeyring(plan, keys, { batchSize: options.batchSize ?? BATCH_SIZE, onProgress: (done) => progress.update(done), ...(budget ? { budget } : {}) });
      progress.finish(count);
      rewrapped += count;
    }
    // Finished only once all are re-wrapped: until the last, every keyring still says "re-run".
    for (const plan of plans) await finishRotation(plan);
    if (keys.files !== null) promoteNextKeyFile(keys.files);

    const seconds = ((now() - started) / 1000).toFixed(1);
    const skipped = contexts.filter((context) => !stores.some((store) => store.context === context));
    io.stdout.write(
      `Rotated the master key of ${plans.length} keyrings (${plans.map((p) => `${p.store.context} ${p.from}→${p.to}`).join(', ')}): ` +
        `${rewrapped} data keys re-wrapped in ${seconds} s.${skipped.length > 0 ? ` No keyring yet: ${skipped.join(', ')}.` : ''}\n`,
    );
    io.stdout.write(nextSteps(keys));
    return 0;
  } catch (error) {
    progress.interrupt();
    io.stderr.write(`keys:rotate-master: ${error instanceof Error ? error.message : String(error)}\n`);
    if (changing) {
      io.stderr.write('The rotation is not finished. Lore refuses to start until this command is run again with the same keys; it continues where this run stopped.\n');
    }
    return 1;
  } finally {
    await Promise.all(stores.map((store) => store.documents.close()));
  }
}

/** What the operator does with the keys now: the old one is not kept anywhere by this command. */
function nextSteps(keys: RotationKeys): string {
  const oldKey =
    'Backups taken before this rotation hold data keys wrapped by the old key (also those of data erased since): ' +
    'keep the old key only as long as you keep such backups, then destroy both.';
  if (keys.files !== null) {
    return `${keys.files.current} now holds the new master key and the old one is gone from it: back up the new key now. ${oldKey}\n`;
  }
  const which = keys.nextSource === 'generated' ? 'the generated key printed above' : 'the value of LORE_NEW_MASTER_KEY';
  return `Set LORE_MASTER_KEY to ${which} before starting Lore: it refuses to start with the old key. ${oldKey}\n`;
}
