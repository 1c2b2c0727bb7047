import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Egress } from '@lore/platform/egress/port';
import { EgressRefused } from '@lore/platform/egress/port';
import { closedPort } from '@lore/platform/testing';

/** What the contract configures an adapter with: the options every adapter takes. */
export interface EgressContractOptions {
  /** Parsed `LORE_EGRESS_ALLOW` entries. */
  allow: string[];
  defaultTimeoutMs?: number;
  maxResponseBytes?: number;
  maxRedirects?: number;
}

/** Where a connection to a test server came from. */
export interface Peer {
  readonly address: string;
  readonly port: number;
}

export interface EgressUnderTest {
  readonly egress: Egress;
  close(): Promise<void>;
  /**
   * For an adapter that reaches servers through an intermediary (a forward proxy): whether a
   * connection a test server accepted from `peer` came through it. When given, the contract
   * checks after every test that every connection to every test server did, so nothing went
   * around the intermediary.
   */
  cameThrough?(peer: Peer): boolean;
}

export type EgressFactory = (options: EgressContractOptions) => Promise<EgressUnderTest>;

export interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A real HTTP server on a loopback address, recording everything that reaches it. */
export interface TestServer {
  readonly host: string;
  readonly port: number;
  /** Requests that reached the handler (their body read), in order. */
  readonly seen: Seen[];
  /** Where each accepted connection came from. */
  readonly peers: Peer[];
  /** Accepted connections that have closed: on a deadline or a cap the adapter must let go. */
  closed: number;
  /** http://host:port + path. */
  url(path?: string): string;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** Egresses and servers for one test, all closed after it. */
export interface Harness {
  open(options: EgressContractOptions): Promise<Egress>;
  serve(handler: Handler, host?: string): Promise<TestServer>;
  /** A port on 127.0.0.1 that nothing listens on, and nothing in the run will. */
  closedPort(): Promise<number>;
}

/** Registers the per-test lifecycle in the calling describe and returns the harness it serves. */
export function useHarness(factory: EgressFactory): Harness {
  const opened: EgressUnderTest[] = [];
  const servers: { server: http.Server; state: TestServer }[] = [];

  afterEach(async () => {
    const checks = opened.filter((under) => under.cameThrough !== undefined);
    const around = checks.length === 0 ? [] : servers.flatMap(({ state }) => state.peers).filter((peer) => !checks.some((under) => under.cameThrough?.(peer)));
    for (const { server } of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
    await Promise.all(opened.splice(0).map((under) => under.close()));
    expect({ connectionsAroundTheIntermediary: around }).toEqual({ connectionsAroundTheIntermediary: [] });
  });

  const serve = async (handler: Handler, host = '127.0.0.1'): Promise<TestServer> => {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        state.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
        handler(req, res);
      });
    });
    const state: TestServer = { host, port: 0, seen: [], peers: [], closed: 0, url: (path = '/') => `http://${host}:${state.port}${path}` };
    server.on('connection', (socket) => {
      state.peers.push({ address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 });
      socket.on('close', () => state.closed++);
    });
    servers.push({ server, state });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return Object.assign(state, { port: (server.address() as AddressInfo).port });
  };

  return {
    open: async (options) => {
      const under = await factory(options);
      opened.push(under);
      return under.egress;
    },
    serve,
    closedPort,
  };
}

/** The refusal a request ends in (fails the test when it succeeds or fails otherwise). */
export async function refusal(promise: Promise<unknown>): Promise<EgressRefused> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof EgressRefused)) throw new Error(`expected an EgressRefused, got ${String(error)}`);
  return error;
}

/** Polls `check` for up to a second (closing a socket is seen by the server a little later). */
export async function eventually(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
}

export const ok: Handler = (_req, res) => res.end('hello');
