import { parentPort } from 'node:worker_threads';
import { readJsonBody } from './json-body-reading';
import type { JsonBodyReply, JsonBodyRequest } from './json-body-thread';

/**
 * The gateway's reader of large JSON bodies (bundled as dist/json-body-reader.js): the same
 * checks and parse as on the event loop (`readJsonBody`), one body at a time, the value sent back.
 */
parentPort?.on('message', ({ id, bytes }: JsonBodyRequest) => {
  let reply: JsonBodyReply;
  try {
    reply = { id, reading: readJsonBody(bytes) };
  } catch (error) {
    reply = { id, failure: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
