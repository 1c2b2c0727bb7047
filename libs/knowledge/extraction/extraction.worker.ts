import { AppError } from '@lore/platform/kernel';

import { extractText } from './extract-text';
import { readerHardLimitMs, TEXT_PIECE_CHARS, type ExtractionOutcome, type ExtractionTask, type ProcessReply, type TaskHeader, type TaskMessage } from './reader-protocol';
import { startReaderWatchdog } from './reader-watchdog';

/**
 * The extraction pool's reader process (ExtractionProcesses), bundled on its own as
 * dist/extraction-worker.js by tools/build.mjs, and from the sources by `workerScript`
 * (libs/platform/kernel) under jest. It runs every reader of this folder in a process of its
 * own, so that a slow or hostile file blocks, or aborts, only that process.
 */
async function extract(task: ExtractionTask): Promise<ExtractionOutcome> {
  try {
    return { ok: true, extracted: await extractText(task, task.limits) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation') return { ok: false, error: error.toJSON() };
    throw error;
  }
}

function serve(hardLimitMs: number): void {
  const watchdog = startReaderWatchdog(hardLimitMs);
  // Resolves once the reply is written, so that pieces go one after another (backpressure).
  const send = (reply: ProcessReply): Promise<void> =>
    new Promise((resolve) => {
      process.send?.(reply, undefined, undefined, () => resolve());
    });
  const answer = async (id: number, outcome: ExtractionOutcome): Promise<void> => {
    if (!outcome.ok) return send({ id, outcome });
    const { text } = outcome.extracted;
    let at = 0;
    for (; text.length - at > TEXT_PIECE_CHARS; at += TEXT_PIECE_CHARS) await send({ id, text: text.slice(at, at + TEXT_PIECE_CHARS) });
    return send({ id, outcome: { ok: true, extracted: { ...outcome.extracted, text: text.slice(at) } } });
  };
  const read = (task: ExtractionTask): void => {
    watchdog.busy();
    void send({ id: task.id, started: true });
    extract(task)
      .then(
        (outcome) => answer(task.id, outcome),
        // Cut to well within what the service takes from a reader (reader-replies.ts).
        (error: unknown) => send({ id: task.id, failure: (error instanceof Error ? error.message : String(error)).slice(0, 4096) }),
      )
      .finally(() => watchdog.idle());
  };
  // The task arriving: its header, then its bytes in chunks (TaskMessage), one task at a time.
  let arriving: { readonly header: TaskHeader; readonly bytes: Uint8Array; received: number } | null = null;
  process.on('message', (message: TaskMessage) => {
    if (!('chunk' in message)) {
      arriving = { header: message, bytes: new Uint8Array(message.size), received: 0 };
    } else if (arriving !== null && message.id === arriving.header.id) {
      arriving.bytes.set(message.chunk, arriving.received);
      arriving.received += message.chunk.length;
    }
    if (arriving !== null && arriving.received === arriving.header.size) {
      const { header, bytes } = arriving;
      arriving = null;
      const { size: _size, ...task } = header;
      read({ ...task, bytes });
    }
  });
  // An idle reader ends with the service's channel; a busy one is ended by its watchdog.
  process.on('disconnect', () => process.exit(0));
  // Loaded, its watchdog running: the service lowers all its threads' priority now.
  void send({ ready: true });
}

const hardLimitMs = readerHardLimitMs(process.argv);
if (hardLimitMs !== null) serve(hardLimitMs);
