import { AppError } from '@lore/platform/kernel';
import { DEFAULT_REQUEST_TIMEOUT_MS, type MessageContext, type Transport } from '@lore/platform/transport/port';
import { sleep, uniqueSubject, type TransportFactory, type TransportFixture } from './contract-fixture';

/** Awaits a promise expected to fail and hands back what it failed with. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

export function describeRequestReplyContract(factory: TransportFactory): void {
  describe('request/reply', () => {
    let fixture: TransportFixture;
    let transport: Transport;

    beforeEach(async () => {
      fixture = await factory();
      transport = fixture.transport;
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    it('is ready once created', () => {
      expect(transport.isReady()).toBe(true);
    });

    it('round-trips nested JSON and gives the handler a JSON copy', async () => {
      const subject = uniqueSubject('echo');
      const received: unknown[] = [];
      await transport.serve(subject, async (payload) => {
        received.push(payload);
        return { echoed: payload, extra: [1, 'two', null, { three: true }] };
      });
      const payload = { name: 'n', nested: { list: [1, 2, { deep: 'x' }], flag: false, nothing: null } };

      const result = await transport.request(subject, payload);

      expect(result).toEqual({ echoed: payload, extra: [1, 'two', null, { three: true }] });
      expect(received).toEqual([payload]);
      expect(received[0]).not.toBe(payload);
    });

    it('delivers what JSON delivers: dates as strings, undefined properties dropped', async () => {
      const subject = uniqueSubject('json');
      let received: unknown;
      await transport.serve(subject, async (payload) => {
        received = payload;
        return { at: new Date(0), gone: undefined };
      });

      const result = await transport.request(subject, { at: new Date(0), gone: undefined });

      expect(received).toStrictEqual({ at: '1970-01-01T00:00:00.000Z' });
      expect(result).toStrictEqual({ at: '1970-01-01T00:00:00.000Z' });
    });

    it('answers undefined when the handler returns nothing', async () => {
      const subject = uniqueSubject('void');
      await transport.serve(subject, async () => undefined);
      await expect(transport.request(subject, undefined)).resolves.toBeUndefined();
    });

    it('isolates payloads and results from later mutation on either side', async () => {
      const subject = uniqueSubject('isolation');
      const kept = { items: ['server'] };
      await transport.serve(subject, async (payload) => {
        (payload as { items: string[] }).items.push('mutated by handler');
        return kept;
      });
      const sent = { items: ['caller'] };

      const result = (await transport.request(subject, sent)) as { items: string[] };
      result.items.push('mutated by caller');

      expect(sent).toEqual({ items: ['caller'] });
      expect(kept).toEqual({ items: ['server'] });
    });

    it('propagates an AppError with its code, message and issues', async () => {
      const subject = uniqueSubject('app-error');
      const issues = [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }];
      await transport.serve(subject, async () => {
        throw new AppError('validation', 'name is required', issues);
      });

      const error = await failure(transport.request(subject, {}));

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'validation', message: 'name is required', issues });
    });

    it('turns any other error into internal without leaking its message', async () => {
      const subject = uniqueSubject('crash');
      await transport.serve(subject, async () => {
        throw new Error('secret connection string postgres://admin:hunter2@db');
      });

      const error = await failure(transport.request(subject, {}));

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'internal', message: 'internal error', issues: [] });
      expect(JSON.stringify(error) + String(error)).not.toContain('hunter2');
    });

    it('fails fast with unavailable when no service serves the subject', async () => {
      const subject = uniqueSubject('nobody');
      const started = Date.now();

      const error = await failure(transport.request(subject, {}, { timeoutMs: 5_000 }));

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'unavailable', message: `no service answers ${subject}` });
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('fails with unavailable when the service does not answer in time', async () => {
      const subject = uniqueSubject('slow');
      await transport.serve(subject, async () => {
        await sleep(500);
        return 'too late';
      });

      const error = await failure(transport.request(subject, {}, { timeoutMs: 100 }));

      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'unavailable' });
      expect((error as AppError).message).toContain('did not answer within 100 ms');
    });

    it('shares the load among servers of one subject, each request handled once', async () => {
      const subject = uniqueSubject('shared');
      const handledBy: Record<'a' | 'b', number[]> = { a: [], b: [] };
      const server = (name: 'a' | 'b') => async (payload: unknown) => {
        handledBy[name].push(payload as number);
        await sleep(5);
        return name;
      };
      await transport.serve(subject, server('a'));
      await transport.serve(subject, server('b'));

      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => transport.request(subject, i)));

      expect(handledBy.a.length).toBeGreaterThan(0);
      expect(handledBy.b.length).toBeGreaterThan(0);
      expect([...handledBy.a, ...handledBy.b].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(answers.filter((answer) => answer === 'a')).toHaveLength(handledBy.a.length);
    });

    it('carries the request id and subject into the handler context', async () => {
      const subject = uniqueSubject('context');
      const contexts: MessageContext[] = [];
      await transport.serve(subject, async (_payload, context) => {
        contexts.push(context);
        return null;
      });

      await transport.request(subject, {}, { requestId: 'req-42' });
      await transport.request(subject, {});

      expect(contexts[0]?.subject).toBe(subject);
      expect(contexts[0]?.requestId).toBe('req-42');
      expect(contexts[1]?.subject).toBe(subject);
      expect(contexts[1]?.requestId).toBeUndefined();
    });

    it('carries the caller\'s budget into the handler context as a deadline on the server\'s clock', async () => {
      const subject = uniqueSubject('deadline');
      const seen: { deadline: number | undefined; at: number }[] = [];
      await transport.serve(subject, async (_payload, context) => {
        seen.push({ deadline: context.deadline, at: Date.now() });
        return null;
      });

      await transport.request(subject, {}, { timeoutMs: 3_000 });
      await transport.request(subject, {});

      const [short, standard] = seen;
      expect(short?.deadline).toBeGreaterThan((short?.at ?? 0) + 2_500);
      expect(short?.deadline).toBeLessThanOrEqual((short?.at ?? 0) + 3_000);
      // Without a budget of its own, a request has the transport's default.
      expect(standard?.deadline).toBeGreaterThan((standard?.at ?? 0) + DEFAULT_REQUEST_TIMEOUT_MS - 500);
    });

    it('hands the caller\'s W3C trace context to the handler, beside the request id', async () => {
      const subject = uniqueSubject('traced');
      const contexts: MessageContext[] = [];
      await transport.serve(subject, async (_payload, context) => {
        contexts.push(context);
        return null;
      });
      const trace = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'lore=1' };

      await transport.request(subject, {}, { requestId: 'req-7', trace });
      await transport.request(subject, {});

      expect(contexts[0]).toMatchObject({ subject, requestId: 'req-7', trace });
      expect(contexts[1]?.trace).toBeUndefined();
    });

    it('stops serving once the server subscription is closed', async () => {
      const subject = uniqueSubject('stopped');
      const served = await transport.serve(subject, async () => 'here');
      await expect(transport.request(subject, {})).resolves.toBe('here');

      await served.close();

      await expect(transport.request(subject, {}, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'unavailable' });
    });

    it('answers requests already being handled when a server subscription closes', async () => {
      const subject = uniqueSubject('draining');
      const served = await transport.serve(subject, async () => {
        await sleep(100);
        return 'finished';
      });

      const pending = transport.request(subject, {});
      await sleep(20);
      await served.close();

      await expect(pending).resolves.toBe('finished');
    });

    it('fails with unavailable after close, and is no longer ready', async () => {
      const subject = uniqueSubject('closed');
      await transport.serve(subject, async () => 'alive');

      await transport.close();

      expect(transport.isReady()).toBe(false);
      const error = await failure(transport.request(subject, {}));
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'unavailable' });
      await expect(transport.publish(subject, {})).rejects.toMatchObject({ code: 'unavailable' });
      await expect(transport.close()).resolves.toBeUndefined();
    });
  });
}
