import { AppError, type SerializedError } from '@lore/platform/kernel';

/**
 * What travels over NATS: JSON text as UTF-8. An empty body stands for `undefined`, which
 * JSON cannot express, so a handler returning nothing answers the caller with nothing.
 */
export type ReplyEnvelope =
  | { readonly ok: true; readonly result?: unknown }
  | { readonly ok: false; readonly error: SerializedError };

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);

export const INTERNAL_ERROR: SerializedError = { code: 'internal', message: 'internal error', issues: [] };

/** Throws for values JSON cannot carry (BigInt, cycles), as the in-process transport does. */
export function encodeJson(value: unknown): Uint8Array {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? EMPTY : encoder.encode(text);
}

export function decodeJson(data: Uint8Array): unknown {
  if (data.length === 0) return undefined;
  try {
    return JSON.parse(decoder.decode(data)) as unknown;
  } catch {
    throw new AppError('validation', 'message payload is not valid JSON');
  }
}

/** Encodes a handler failure; only AppErrors are meant for callers, anything else is masked. */
export function encodeFailure(error: unknown): Uint8Array {
  if (error instanceof AppError) {
    try {
      return encodeJson({ ok: false, error: error.toJSON() } satisfies ReplyEnvelope);
    } catch {
      // Issues that JSON cannot carry: fall through to the masked error rather than no reply.
    }
  }
  return encodeJson({ ok: false, error: INTERNAL_ERROR } satisfies ReplyEnvelope);
}

/** A reply that is not an envelope comes from something that is not a Lore server. */
export function decodeReply(data: Uint8Array, subject: string): ReplyEnvelope {
  const malformed = (): AppError => new AppError('internal', `malformed reply from ${subject}`);
  let value: unknown;
  try {
    value = decodeJson(data);
  } catch {
    throw malformed();
  }
  if (!isRecord(value)) throw malformed();
  if (value['ok'] === true) return { ok: true, result: value['result'] };
  const error = value['error'];
  if (value['ok'] !== false || !isSerializedError(error)) throw malformed();
  return { ok: false, error };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSerializedError(value: unknown): value is SerializedError {
  return (
    isRecord(value) &&
    typeof value['code'] === 'string' &&
    typeof value['message'] === 'string' &&
    (value['issues'] === undefined || Array.isArray(value['issues']))
  );
}
