import { Socket } from 'node:net';

import { AppError, type SerializedError } from '@lore/platform/kernel';

import { extractText } from './extract-text';
import { JsonLines, READER_FD } from './reader-channel';
import { MAX_ERROR_CHARS, MAX_PIECE_LINE_CHARS, readerHardLimitMs, TEXT_PIECE_CHARS, type ExtractionOutcome, type ExtractionTask, type ProcessReply, type TaskHeader, type TaskMessage } from './reader-protocol';
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
    if (error instanceof AppError && error.code === 'validation') return { ok: false, error: cutMessages(error.toJSON()) };
    throw error;
  }
}

/** Within what the service takes from a reader (reader-replies.ts): the messages name the file, whose name the upload chose. */
function cutMessages(error: SerializedError): SerializedError {
  return { ...error, message: error.message.slice(0, MAX_ERROR_CHARS), issues: (error.issues ?? []).map((issue) => ({ ...issue, msg: issue.msg.slice(0, MAX_ERROR_CHARS) })) };
}

function serve(hardLimitMs: number): void {
  const watchdog = startReaderWatchdog(hardLimitMs);
  const socket = new Socket({ fd: READER_FD, readable: true, writable: true });
  // The service is trusted: any of its lines up to the longest there is.
  const channel = new JsonLines(socket, {
    maxStringLineChars: MAX_PIECE_LINE_CHARS,
    maxOtherLineChars: MAX_PIECE_LINE_CHARS,
    onMessage: (message) => take(message as TaskMessage),
    onBreach: () => process.exit(1),
  });
  // Resolves once the reply is written, so that pieces go one after another (backpressure).
  const send = (reply: ProcessReply): Promise<void> =>
    new Promise((resolve) => {
      channel.send(reply, () => resolve());
    });
  const answer = async (id: number, outcome: ExtractionOutcome): Promise<void> => {
    if (!outcome.ok) return send({ id, outcome });
    const { text, ...facts } = outcome.extracted;
    for (let at = 0; at < text.length; at += TEXT_PIECE_CHARS) await send(text.slice(at, at + TEXT_PIECE_CHARS));
    return send({ id, outcome: { ok: true, extracted: facts } });
  };
  const read = (task: ExtractionTask): void => {
    watchdog.busy();
    void send({ id: task.id, started: true });
    extract(task)
      .then(
        (outcome) => answer(task.id, outcome),
        (error: unknown) => send({ id: task.id, failure: (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_CHARS) }),
      )
      .finally(() => watchdog.idle());
  };
  // The task arriving: its header, then its bytes in chunks (TaskMessage), one task at a time.
  let arriving: { readonly header: TaskHeader; readonly bytes: Uint8Array; received: number } | null = null;
  const take = (message: TaskMessage): void => {
    if (!('chunk' in message)) {
      arriving = { header: message, bytes: new Uint8Array(message.size), received: 0 };
    } else if (arriving !== null && message.id === arriving.header.id) {
      const chunk = Buffer.from(message.chunk, 'base64');
      arriving.bytes.set(chunk, arriving.received);
      arriving.received += chunk.length;
    }
    if (arriving !== null && arriving.received === arriving.header.size) {
      const { header, bytes } = arriving;
      arriving = null;
      const { size: _size, ...task } = header;
      read({ ...task, bytes });
    }
  };
  // An idle reader ends with the service's end of the channel; a busy one is ended by its watchdog.
  socket.on('end', () => process.exit(0));
  socket.on('error', () => process.exit(1));
  // Loaded, its watchdog running: the service lowers all its threads' priority now.
  void send({ ready: true });
}

const hardLimitMs = readerHardLimitMs(process.argv);
if (hardLimitMs !== null) serve(hardLimitMs);
