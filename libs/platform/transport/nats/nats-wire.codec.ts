import { AppError, type ErrorCode, type SerializedError } from '@lore/platform/kernel';

/**
 * What travels over NATS: the `@nestjs/microservices` NATS wire format, JSON text as UTF-8,
 * so a stock Nest client or microservice can talk to a Lore service and back.
 *
 * - request: `{ pattern, data, id }` on subject = pattern, with a reply subject;
 * - reply:   `{ id, response, isDisposed: true }` or `{ id, err, isDisposed: true }`. A Nest
 *   server may also stream: `{ id, response }`… then `{ id, isDisposed: true }`;
 * - event:   `{ pattern, data }` on subject = pattern, no reply subject.
 *
 * `undefined` (a payload, a handler returning nothing) is an absent `data` / `response`
 * property, which a Nest client sees as an observable completing without a value.
 * An AppError travels as `err: { status: 'error', code, message, issues }`: the shape of
 * Nest's RpcException replies, with Lore's code and issues beside the message.
 */
export interface IncomingMessage {
  /** Present on requests; echoed in every reply so a Nest client can match it. */
  readonly id?: unknown;
  readonly data: unknown;
}

/** One message of a reply stream, as a Nest client reads it. */
export interface ReplyPacket {
  readonly id?: unknown;
  /** Whether the packet carries a response (`response: undefined` cannot travel). */
  readonly hasResponse: boolean;
  readonly response?: unknown;
  /** Truthy when the stream failed; ends the stream. */
  readonly err?: unknown;
  /** True when the stream ends with this packet. */
  readonly isDisposed: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const INTERNAL_ERROR: SerializedError = { code: 'internal', message: 'internal error', issues: [] };

const ERROR_CODES: Readonly<Record<ErrorCode, true>> = {
  validation: true,
  failed_checks: true,
  unauthenticated: true,
  forbidden: true,
  not_found: true,
  conflict: true,
  too_large: true,
  rate_limited: true,
  unavailable: true,
  bad_gateway: true,
  gateway_timeout: true,
  internal: true,
};

/** Throws for values JSON cannot carry (BigInt, cycles), as the in-process transport does. */
export function encodeRequest(subject: string, payload: unknown, id: string): Uint8Array {
  return encodeJson({ pattern: subject, data: payload, id });
}

/** Throws for values JSON cannot carry (BigInt, cycles), as the in-process transport does. */
export function encodeEvent(subject: string, payload: unknown): Uint8Array {
  return encodeJson({ pattern: subject, data: payload });
}

/**
 * Reads a request or an event: a packet with a `pattern`, as Nest's clients send. Anything
 * else is a validation failure (for a request, the caller receives it as the reply).
 */
export function decodeIncoming(data: Uint8Array, subject: string): IncomingMessage {
  const value = decodeJson(data);
  if (!isRecord(value) || value['pattern'] === undefined) {
    throw new AppError('validation', `message on ${subject} is not a @nestjs/microservices packet { pattern, data }`);
  }
  return value['id'] === undefined ? { data: value['data'] } : { id: value['id'], data: value['data'] };
}

/** Throws for results JSON cannot carry; the caller then answers with a failure instead. */
export function encodeResponse(id: unknown, result: unknown): Uint8Array {
  return encodeJson({ id, response: result, isDisposed: true });
}

/** Encodes a handler failure; only AppErrors are meant for callers, anything else is masked. */
export function encodeFailure(id: unknown, error: unknown): Uint8Array {
  if (error instanceof AppError) {
    try {
      return encodeJson({ id, err: { status: 'error', ...error.toJSON() }, isDisposed: true });
    } catch {
      // Issues that JSON cannot carry: fall through to the masked error rather than no reply.
    }
  }
  return encodeJson({ id, err: { status: 'error', ...INTERNAL_ERROR }, isDisposed: true });
}

/**
 * Reads one message of a reply stream. Something that is not a reply packet (not JSON, not
 * an object, none of `response`, `err`, `isDisposed`) comes from something that is not a
 * Lore or Nest server: an AppError `internal`.
 */
export function decodeReply(data: Uint8Array, subject: string): ReplyPacket {
  const malformed = (): AppError => new AppError('internal', `malformed reply from ${subject}`);
  let value: unknown;
  try {
    value = decodeJson(data);
  } catch {
    throw malformed();
  }
  if (!isRecord(value)) throw malformed();
  const hasResponse = value['response'] !== undefined;
  const { id, err, isDisposed } = value;
  if (!hasResponse && err === undefined && isDisposed === undefined) throw malformed();
  return {
    ...(id === undefined ? {} : { id }),
    hasResponse,
    ...(hasResponse ? { response: value['response'] } : {}),
    // Truthiness, as Nest's client reads these fields.
    ...(err ? { err } : {}),
    isDisposed: Boolean(isDisposed),
  };
}

/**
 * The `err` of a reply as Lore's caller sees it: a Lore error shape (from a Lore server, or
 * a Nest RpcException thrown with `{ code, message, issues }`) is that AppError; anything
 * else is a failure not meant for callers, masked as `internal` (undefined when masked).
 */
export function errorOfReply(err: unknown): SerializedError | undefined {
  if (!isRecord(err)) return undefined;
  const { code, message, issues, checks } = err;
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_CODES, code) || typeof message !== 'string') return undefined;
  if (issues !== undefined && !(Array.isArray(issues) && issues.every(isValidationIssue))) return undefined;
  if (checks !== undefined && !(Array.isArray(checks) && checks.every((c) => typeof c === 'string'))) return undefined;
  return { code: code as ErrorCode, message, issues: (issues as SerializedError['issues']) ?? [], ...(checks === undefined ? {} : { checks }) };
}

function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

function decodeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data)) as unknown;
  } catch {
    throw new AppError('validation', 'message payload is not valid JSON');
  }
}

function isValidationIssue(value: unknown): boolean {
  return (
    isRecord(value) &&
    Array.isArray(value['loc']) &&
    value['loc'].every((part) => typeof part === 'string' || typeof part === 'number') &&
    typeof value['msg'] === 'string' &&
    typeof value['type'] === 'string'
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
