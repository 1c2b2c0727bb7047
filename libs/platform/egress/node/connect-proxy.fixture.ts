import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A tiny forward proxy for the proxy adapter's specs: it answers CONNECT by opening a TCP
 * connection to the target and piping both ways (502 when the target cannot be reached), and
 * records every tunnel, so a spec can tell what went through it and what did not.
 */
export interface ConnectProxy {
  /** http://127.0.0.1:<port>, to give createProxyEgress (add credentials as needed). */
  readonly url: string;
  readonly port: number;
  /** CONNECT targets in arrival order, as the client wrote them (`127.0.0.1:8080`, `[::1]:443`). */
  readonly tunnels: string[];
  /** Proxy-Authorization of each CONNECT (undefined when absent). */
  readonly authorizations: (string | undefined)[];
  /** Local ports of the connections it opened to targets: a server sees these as its peers' ports. */
  readonly upstreamPorts: Set<number>;
  /** Connections from clients that have closed (a client gave up or finished). */
  clientsClosed: number;
  /** When set, every CONNECT is answered with this status instead of a tunnel; 0 never answers. */
  refuseWith: number | undefined;
  close(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = http.createServer((_req, res) => res.writeHead(405).end('CONNECT only'));
  const proxy: ConnectProxy = {
    url: '',
    port: 0,
    tunnels: [],
    authorizations: [],
    upstreamPorts: new Set(),
    clientsClosed: 0,
    refuseWith: undefined,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    track(client);
    client.on('close', () => proxy.clientsClosed++);
    client.on('error', () => undefined);
    proxy.tunnels.push(req.url ?? '');
    proxy.authorizations.push(req.headers['proxy-authorization']);
    // http.Server sockets are half-open: one left unanswered closes only once told to, when the
    // client ends it (which is what the egress must do at its deadline).
    if (proxy.refuseWith === 0) return void client.on('end', () => client.destroy());
    if (proxy.refuseWith !== undefined) return void client.end(`HTTP/1.1 ${proxy.refuseWith} Refused\r\ncontent-length: 0\r\n\r\n`);
    const { hostname, port } = new URL(`http://${req.url ?? ''}`);
    const upstream = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    track(upstream);
    let connected = false;
    upstream.on('connect', () => {
      connected = true;
      proxy.upstreamPorts.add(upstream.localPort ?? 0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // A tunnel is one connection each way: an end travels through pipe(), a failure or the
    // client going away tears down the other side too.
    upstream.on('error', () => (connected ? client.destroy() : client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n')));
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(proxy, { port, url: `http://127.0.0.1:${port}` });
}
