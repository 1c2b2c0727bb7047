import { randomBytes } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ClientProxyFactory,
  NatsRecordBuilder,
  Transport as NestTransport,
  type ClientProxy,
  type MicroserviceOptions,
} from '@nestjs/microservices';
import { AppError } from '@lore/platform/kernel';
import { describeWithServer } from '@lore/platform/testing';
import type { MessageContext, Transport } from '@lore/platform/transport/port';
import { connect, headers, type NatsConnection } from 'nats';
import { lastValueFrom, timeout } from 'rxjs';
import { REQUEST_ID_HEADER, connectNatsTransport } from './nats-transport.adapter';
import { CONFLICT_ISSUES, Deliveries, NEST, PREFIX, StockNestModule, nestEvents, nestRequests } from './nest-stock-app.fixture';

/**
 * Lore's NATS transport against the real `@nestjs/microservices` NATS client and server, on
 * a real NATS server: a stock Nest app can call Lore services and receive their events, and
 * Lore can call Nest services and receive theirs. Subjects live under a prefix unique to
 * this run, so parallel runs on one server never see each other's messages. The stock Nest
 * app is in nest-stock-app.fixture.ts.
 */
let loreSubjects = 0;
const loreSubject = (name: string): string => `${PREFIX}.lore.${name}.${++loreSubjects}`;

/** What an observable or promise failed with. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describeWithServer('NATS_URL', '@nestjs/microservices NATS interop', (url) => {
  let nestServer: INestMicroservice;
  let nestClient: ClientProxy;
  let lore: Transport;
  /** A plain nats.js connection, for responders and sniffers that are neither Lore nor Nest. */
  let raw: NatsConnection;
  const loreErrors: unknown[] = [];

  /** A stock Nest client's `send`, as a promise of its last value (or of `ifNone`). */
  const send = (subject: string, data: unknown, ifNone?: { readonly defaultValue: unknown }): Promise<unknown> => {
    const reply$ = nestClient.send<unknown>(subject, data).pipe(timeout(5_000));
    return ifNone === undefined ? lastValueFrom(reply$) : lastValueFrom(reply$, ifNone);
  };

  beforeAll(async () => {
    nestServer = await NestFactory.createMicroservice<MicroserviceOptions>(StockNestModule, {
      transport: NestTransport.NATS,
      options: { servers: [url], name: 'lore-nest-interop-server' },
      logger: false,
    });
    await nestServer.listen();
    // Nest's server does not flush its subscriptions; a request from another connection
    // right after could otherwise find no responder.
    await nestServer.unwrap<NatsConnection>().flush();

    nestClient = ClientProxyFactory.create({
      transport: NestTransport.NATS,
      options: { servers: [url], name: 'lore-nest-interop-client' },
    });
    await nestClient.connect();

    lore = await connectNatsTransport({ url, name: 'lore-nest-interop', onError: (error) => loreErrors.push(error) });
    raw = await connect({ servers: url, name: 'lore-nest-interop-raw' });
  });

  afterAll(async () => {
    await lore?.close();
    await nestClient?.close();
    await nestServer?.close();
    await raw?.close();
  });

  beforeEach(() => {
    loreErrors.length = 0;
  });

  describe('a stock Nest client calling a Lore service', () => {
    const serve = async (handler: (payload: unknown, context: MessageContext) => Promise<unknown>) => {
      const subject = loreSubject('served');
      const received: Array<{ payload: unknown; context: MessageContext }> = [];
      const subscription = await lore.serve(subject, async (payload, context) => {
        received.push({ payload, context });
        return handler(payload, context);
      });
      return { subject, received, subscription };
    };

    it('gets the handler result, and the handler gets the data of the { pattern, data, id } request', async () => {
      const { subject, received } = await serve(async (payload) => ({ echoed: payload, list: [1, null, 'x'] }));

      const result = await send(subject, { name: 'n', nested: { deep: [1, 2] } });

      expect(result).toEqual({ echoed: { name: 'n', nested: { deep: [1, 2] } }, list: [1, null, 'x'] });
      expect(received).toEqual([{ payload: { name: 'n', nested: { deep: [1, 2] } }, context: { subject } }]);
    });

    it('carries the Lore-Request-Id header of a Nest NatsRecord into the handler context', async () => {
      const { subject, received } = await serve(async () => 'ok');
      const hdrs = headers();
      hdrs.set(REQUEST_ID_HEADER, 'req-from-nest');

      await expect(send(subject, new NatsRecordBuilder({ a: 1 }).setHeaders(hdrs).build())).resolves.toBe('ok');

      expect(received).toEqual([{ payload: { a: 1 }, context: { subject, requestId: 'req-from-nest' } }]);
    });

    it('sees an AppError as an error carrying status, code, message and issues', async () => {
      const issues = [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }];
      const { subject } = await serve(async () => {
        throw new AppError('validation', 'name is required', issues);
      });

      const error = await failure(send(subject, {}));

      expect(error).toEqual({ status: 'error', code: 'validation', message: 'name is required', issues });
    });

    it('sees any other failure masked as internal, without its message', async () => {
      const { subject } = await serve(async () => {
        throw new Error('secret connection string postgres://admin:hunter2@db');
      });

      const error = await failure(send(subject, {}));

      expect(error).toEqual({ status: 'error', code: 'internal', message: 'internal error', issues: [] });
    });

    it('sees a handler returning nothing as a stream that completes without a value', async () => {
      const { subject } = await serve(async () => undefined);

      await expect(send(subject, {}, { defaultValue: 'no value' })).resolves.toBe('no value');
    });

    it('gets null as a value', async () => {
      const { subject } = await serve(async () => null);

      await expect(send(subject, {}, { defaultValue: 'no value' })).resolves.toBeNull();
    });
  });

  describe('Lore calling a stock Nest @MessagePattern service', () => {
    it('gets the reply, and the Nest handler gets the data and the Lore-Request-Id header', async () => {
      const before = nestRequests.items.length;

      const result = await lore.request(NEST.echo, { name: 'n', list: [1, { deep: true }] }, { requestId: 'req-from-lore' });

      expect(result).toEqual({ echoed: { name: 'n', list: [1, { deep: true }] } });
      const [delivered] = (await nestRequests.waitFor(before + 1)).slice(before);
      expect(delivered).toEqual({ data: { name: 'n', list: [1, { deep: true }] }, subject: NEST.echo, requestId: 'req-from-lore' });
    });

    it('gets undefined when the Nest handler returns nothing', async () => {
      await expect(lore.request(NEST.nothing, { any: 1 })).resolves.toBeUndefined();
    });

    it('reads a reply sent as { response } then { isDisposed } as that response', async () => {
      const marker = `late-${randomBytes(4).toString('hex')}`;
      const packets = await sniffReplies(raw, `answer to ${marker}`, async () => {
        await expect(lore.request(NEST.lateDispose, marker)).resolves.toBe(`answer to ${marker}`);
      });

      // The case under test really happened: Nest sent the end of the stream on its own.
      expect(packets.map(({ response, isDisposed }) => ({ response, isDisposed }))).toEqual([
        { response: `answer to ${marker}`, isDisposed: undefined },
        { response: undefined, isDisposed: true },
      ]);
    });

    it('takes the last response of a stream, ending at isDisposed', async () => {
      const marker = `stream-${randomBytes(4).toString('hex')}`;
      const packets = await sniffReplies(raw, `${marker}:1`, async () => {
        await expect(lore.request(NEST.stream, marker)).resolves.toBe(`${marker}:3`);
      });

      expect(packets.map(({ response, isDisposed }) => ({ response, isDisposed }))).toEqual([
        { response: `${marker}:1`, isDisposed: undefined },
        { response: `${marker}:2`, isDisposed: undefined },
        { response: `${marker}:3`, isDisposed: undefined },
        { response: undefined, isDisposed: true },
      ]);
    });

    it('fails when the stream fails after a response', async () => {
      const marker = `late-error-${randomBytes(4).toString('hex')}`;
      let error: unknown;
      const packets = await sniffReplies(raw, marker, async () => {
        error = await failure(lore.request(NEST.lateError, marker));
      });

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'conflict', message: 'changed while streaming', issues: [] });
      expect(packets.map(({ response, err, isDisposed }) => ({ response, err, isDisposed }))).toEqual([
        { response: marker, err: undefined, isDisposed: undefined },
        { response: undefined, err: { code: 'conflict', message: 'changed while streaming' }, isDisposed: true },
      ]);
    });

    it('does not answer with a response before the stream ends: no isDisposed in time is unavailable', async () => {
      const marker = `partial-${randomBytes(4).toString('hex')}`;
      let error: unknown;
      const packets = await sniffReplies(raw, marker, async () => {
        error = await failure(lore.request(NEST.neverDisposed, marker, { timeoutMs: 300 }));
      });

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'unavailable', message: `service ${NEST.neverDisposed} did not answer within 300 ms` });
      // A response did arrive; only the end of the stream did not.
      expect(packets.map(({ response, isDisposed }) => ({ response, isDisposed }))).toEqual([{ response: marker, isDisposed: undefined }]);
    });

    it('turns an RpcException carrying a Lore error into that AppError', async () => {
      const error = await failure(lore.request(NEST.loreError, {}));

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'conflict', message: 'memory changed meanwhile', issues: CONFLICT_ISSUES });
    });

    it('masks an RpcException without a Lore error as internal, and reports it to the host', async () => {
      const error = await failure(lore.request(NEST.plainError, {}));

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'internal', message: 'internal error', issues: [] });
      expect(String(loreErrors[0])).toContain('quota of the remote service exceeded');
    });

    it("turns Nest's masked unknown error into internal, without the secret", async () => {
      const error = await failure(lore.request(NEST.crash, {}));

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'internal', message: 'internal error' });
      expect(JSON.stringify(error) + String(error) + loreErrors.map(String).join()).not.toContain('hunter2');
    });

    it.each([
      ['not JSON', 'not json'],
      ['a JSON number', '42'],
      ['an object without response, err or isDisposed', '{"ok":true,"result":1}'],
      ['an empty body', ''],
    ])('answers internal for a reply it cannot interpret: %s', async (_case, body) => {
      const subject = loreSubject('malformed');
      const responder = raw.subscribe(subject, { callback: (_error, msg) => msg.respond(new TextEncoder().encode(body)) });
      await raw.flush();
      try {
        const error = await failure(lore.request(subject, {}));

        expect(error).toBeInstanceOf(AppError);
        expect(error).toMatchObject({ code: 'internal', message: `malformed reply from ${subject}` });
      } finally {
        responder.unsubscribe();
      }
    });
  });

  describe('events', () => {
    it("reach a stock Nest @EventPattern handler from Lore's publish, with the request id", async () => {
      const before = nestEvents.items.length;

      // An event shaped like many integration events, with a `data` field of its own.
      const event = { type: 'memory.created', data: { id: 'm1' }, tags: ['a'] };

      await lore.publish(NEST.event, event, { requestId: 'req-event' });

      const [delivered] = (await nestEvents.waitFor(before + 1)).slice(before);
      expect(delivered).toEqual({ data: event, subject: NEST.event, requestId: 'req-event' });
    });

    it("reach Lore's exact and wildcard subscribers from a stock Nest client's emit", async () => {
      const base = loreSubject('events');
      const subject = `${base}.memory.created`;
      const exact = new Deliveries<{ payload: unknown; context: MessageContext }>();
      const tail = new Deliveries<{ payload: unknown; context: MessageContext }>();
      await lore.subscribe(subject, async (payload, context) => exact.push({ payload, context }));
      await lore.subscribe(`${base}.>`, async (payload, context) => tail.push({ payload, context }));

      await lastValueFrom(nestClient.emit(subject, { id: 'm2', nested: { list: [1] } }), { defaultValue: undefined });

      for (const inbox of [exact, tail]) {
        expect(await inbox.waitFor(1)).toEqual([{ payload: { id: 'm2', nested: { list: [1] } }, context: { subject } }]);
      }
      expect(loreErrors).toEqual([]);
    });
  });
});

interface SniffedPacket {
  readonly id?: unknown;
  readonly response?: unknown;
  readonly err?: unknown;
  readonly isDisposed?: unknown;
}

/**
 * The reply packets, as they crossed NATS, of the request answered with `response` while
 * `during` runs, so a test can show that the case it names occurred.
 */
async function sniffReplies(nc: NatsConnection, response: string, during: () => Promise<void>): Promise<SniffedPacket[]> {
  const seen: SniffedPacket[] = [];
  const sniffer = nc.subscribe('_INBOX.>', {
    callback: (_error, msg) => {
      try {
        seen.push(JSON.parse(new TextDecoder().decode(msg.data)) as SniffedPacket);
      } catch {
        // Someone else's inbox traffic on a shared server.
      }
    },
  });
  await nc.flush();
  try {
    await during();
    // Messages from Nest were delivered to Lore; a flush round trip lets the sniffer catch up.
    await nc.flush();
  } finally {
    sniffer.unsubscribe();
  }
  const answer = seen.find((packet) => packet.response === response);
  return seen.filter((packet) => answer !== undefined && packet.id === answer.id);
}
