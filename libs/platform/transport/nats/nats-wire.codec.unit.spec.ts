import { AppError, type ValidationIssue } from '@lore/platform/kernel';
import {
  decodeIncoming,
  decodeReply,
  encodeEvent,
  encodeFailure,
  encodeRequest,
  encodeResponse,
  errorOfReply,
} from './nats-wire.codec';

/** The packets of the @nestjs/microservices NATS wire format, pinned field by field. */
const json = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('NATS wire codec (@nestjs/microservices format)', () => {
  it('encodes a request as { pattern, data, id } and an event as { pattern, data }', () => {
    expect(json(encodeRequest('memory.get', { id: 'm1' }, 'r1'))).toStrictEqual({ pattern: 'memory.get', data: { id: 'm1' }, id: 'r1' });
    expect(json(encodeRequest('memory.get', undefined, 'r1'))).toStrictEqual({ pattern: 'memory.get', id: 'r1' });
    expect(json(encodeEvent('memory.created', [1]))).toStrictEqual({ pattern: 'memory.created', data: [1] });
  });

  it('rejects payloads JSON cannot carry', () => {
    expect(() => encodeRequest('s', { n: 1n }, 'r1')).toThrow(TypeError);
    expect(() => encodeEvent('s', 1n)).toThrow(TypeError);
  });

  it('decodes requests and events with a pattern, and refuses anything else', () => {
    expect(decodeIncoming(bytes('{"pattern":"s","data":{"a":1},"id":"r1"}'), 's')).toStrictEqual({ id: 'r1', data: { a: 1 } });
    expect(decodeIncoming(bytes('{"pattern":"s","data":2}'), 's')).toStrictEqual({ data: 2 });
    expect(decodeIncoming(bytes('{"pattern":"s"}'), 's')).toStrictEqual({ data: undefined });
    for (const body of ['{"a":1}', '[1]', '1', '', 'not json']) {
      expect(() => decodeIncoming(bytes(body), 's')).toThrow(AppError);
      expect(() => decodeIncoming(bytes(body), 's')).toThrow(expect.objectContaining({ code: 'validation' }));
    }
  });

  it('encodes a result as one final packet; undefined as no response', () => {
    expect(json(encodeResponse('r1', { a: 1 }))).toStrictEqual({ id: 'r1', response: { a: 1 }, isDisposed: true });
    expect(json(encodeResponse('r1', null))).toStrictEqual({ id: 'r1', response: null, isDisposed: true });
    expect(json(encodeResponse('r1', undefined))).toStrictEqual({ id: 'r1', isDisposed: true });
    expect(() => encodeResponse('r1', 1n)).toThrow(TypeError);
  });

  it('encodes an AppError as an RpcException-like err, and masks anything else', () => {
    const issues: ValidationIssue[] = [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }];
    expect(json(encodeFailure('r1', new AppError('validation', 'bad', issues)))).toStrictEqual({
      id: 'r1',
      err: { status: 'error', code: 'validation', message: 'bad', issues },
      isDisposed: true,
    });
    const internal = { status: 'error', code: 'internal', message: 'internal error', issues: [] };
    expect(json(encodeFailure('r1', new Error('secret')))).toStrictEqual({ id: 'r1', err: internal, isDisposed: true });
    const unencodable = new AppError('validation', 'bad', [{ loc: [], msg: 'x', type: 't', extra: 1n } as ValidationIssue]);
    expect(json(encodeFailure(undefined, unencodable))).toStrictEqual({ err: internal, isDisposed: true });
  });

  it('decodes reply packets, including the parts of a stream', () => {
    expect(decodeReply(bytes('{"id":"r1","response":1,"isDisposed":true}'), 's')).toStrictEqual({
      id: 'r1',
      hasResponse: true,
      response: 1,
      isDisposed: true,
    });
    expect(decodeReply(bytes('{"id":"r1","response":1}'), 's')).toStrictEqual({ id: 'r1', hasResponse: true, response: 1, isDisposed: false });
    expect(decodeReply(bytes('{"id":"r1","isDisposed":true}'), 's')).toStrictEqual({ id: 'r1', hasResponse: false, isDisposed: true });
    expect(decodeReply(bytes('{"err":"boom"}'), 's')).toStrictEqual({ hasResponse: false, err: 'boom', isDisposed: false });
  });

  it('refuses replies that are no packet as internal', () => {
    for (const body of ['', 'not json', '42', '[1]', 'null', '{"ok":true,"result":1}']) {
      expect(() => decodeReply(bytes(body), 's')).toThrow(expect.objectContaining({ code: 'internal', message: 'malformed reply from s' }));
    }
  });

  it('reads a Lore error shape from err, and nothing else', () => {
    const issues = [{ loc: ['a', 0], msg: 'm', type: 't' }];
    expect(errorOfReply({ status: 'error', code: 'conflict', message: 'm', issues })).toStrictEqual({ code: 'conflict', message: 'm', issues });
    expect(errorOfReply({ code: 'not_found', message: 'm' })).toStrictEqual({ code: 'not_found', message: 'm', issues: [] });
    expect(errorOfReply({ status: 'error', message: 'Internal server error' })).toBeUndefined();
    expect(errorOfReply({ code: 'teapot', message: 'm' })).toBeUndefined();
    expect(errorOfReply({ code: 'conflict', message: 'm', issues: [{ loc: 'a' }] })).toBeUndefined();
    expect(errorOfReply({ code: 'constructor', message: 'm' })).toBeUndefined();
    expect(errorOfReply('plain')).toBeUndefined();
  });
});
