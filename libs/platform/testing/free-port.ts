import { connect, createServer } from 'node:net';

/** A loopback port free right now, for a server a test spawns (which cannot report its own). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * A loopback port nothing listens on, and nothing in the run will: for "cannot connect" tests.
 * Below the ephemeral range on purpose: a port freed by a closed server can be handed to another
 * test's listen(0) (in CI an "unreachable" request then got that server's 200) or become a
 * connection's own source port (a TCP self-connect). Nothing in the suite listens on a fixed low
 * port. None of these is on fetch's bad-port list (which refuses 9 before connecting).
 */
export async function closedPort(): Promise<number> {
  for (const port of [47, 51, 61, 63, 71, 83]) if (await refusesConnections(port)) return port;
  throw new Error('no candidate port on 127.0.0.1 refused a connection (each accepted it or did not answer)');
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    // Where SYNs to a port are dropped rather than refused, try the next one.
    socket.setTimeout(2000, () => (socket.destroy(), resolve(false)));
  });
}
