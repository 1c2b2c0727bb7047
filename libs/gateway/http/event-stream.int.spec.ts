import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { EventStreamReply, type RequestScope, type ServerSentEvent } from '@lore/platform/http';
import { EventStreams } from './event-stream';

const scope = { workspaceId: 'acme', actor: 'user:u1', requestId: 'r1' } as unknown as RequestScope;
const HEARTBEAT_MS = 60_000;

/** A server whose one route streams what `source` yields, as the gateway's event route does. */
async function serve(source: () => AsyncIterable<readonly ServerSentEvent[]>): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify();
  const streams = new EventStreams(HEARTBEAT_MS);
  streams.register(app);
  app.get('/events', async (_request, reply) => streams.send(reply, new EventStreamReply(() => source()), undefined, scope));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port };
}

/** A raw HTTP client: nothing is read from the socket until `resume`, so the server meets a lagging reader. */
function rawClient(port: number): { socket: Socket; text: () => string; waitFor: (predicate: (text: string) => boolean) => Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  socket.write('GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const waitFor = async (predicate: (text: string) => boolean): Promise<void> => {
    while (!predicate(received)) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  return { socket, text: () => received, waitFor };
}

const settle = async (read: () => number): Promise<number> => {
  // Until the count stops moving over a few turns of timers: the server has stopped pulling.
  for (let last = -1; ; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = read();
    if (now === last) return now;
    last = now;
  }
};

describe('EventStreams (SSE writing)', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('pulls nothing more while the client does not read, then sends every event once, in order', async () => {
    const total = 100_000;
    let pulled = 0;
    const padding = 'x'.repeat(400);
    ({ app } = await serve(async function* () {
      for (let i = 0; i < total; i++) {
        pulled++;
        yield [{ id: `id-${i}`, data: JSON.stringify({ n: i, padding }) }];
      }
    }));
    const port = (app.server.address() as AddressInfo).port;
    const client = rawClient(port);
    client.socket.pause();
    const stalled = await settle(() => pulled);
    // The socket buffers hold a bounded amount; the rest of the source was never read.
    expect(stalled).toBeLessThan(total / 2);

    client.socket.resume();
    await client.waitFor((text) => text.includes(`id: id-${total - 1}\n`));
    const ids = [...client.text().matchAll(/^id: id-(\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => i));
    client.socket.destroy();
  });

  it('sends an event as soon as it is pulled when no more follow (a live tail is not held back for a batch)', async () => {
    let release: () => void = () => undefined;
    const later = new Promise<void>((resolve) => (release = resolve));
    ({ app } = await serve(async function* () {
      yield [{ id: 'first', data: '{"n":1}' }];
      await later; // the feed has nothing more for now
      yield [{ id: 'second', data: '{"n":2}' }];
    }));
    const client = rawClient((app.server.address() as AddressInfo).port);
    await client.waitFor((text) => text.includes('id: first\ndata: {"n":1}\n\n'));
    expect(client.text()).not.toContain('second');
    release();
    await client.waitFor((text) => text.includes('id: second\ndata: {"n":2}\n\n'));
    client.socket.destroy();
  });

  it('writes each event\'s text as it is, in UTF-8, with a data line per line of it', async () => {
    ({ app } = await serve(async function* () {
      yield [
        { id: 'a', data: '{"memory":"thé ☕ 🍵"}' },
        { id: 'b', data: '{"n":\n2,\r"m":\r\n3}' },
        { id: 'c', event: 'gap', data: '{"text":"ünïcode"}' },
      ];
      yield [{ id: 'd', data: 'one\ntwo\rthree' }];
    }));
    const client = rawClient((app.server.address() as AddressInfo).port);
    const expected = 'id: a\ndata: {"memory":"thé ☕ 🍵"}\n\nid: b\ndata: {"n":\ndata: 2,\ndata: "m":\ndata: 3}\n\nid: c\nevent: gap\ndata: {"text":"ünïcode"}\n\n';
    await client.waitFor((text) => text.includes('id: d\ndata: one\ndata: two\ndata: three\n\n'));
    expect(client.text()).toContain(expected);
    client.socket.destroy();
  });
});
