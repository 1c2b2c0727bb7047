import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly status: number;
}

/**
 * A webhook endpoint stand-in on 127.0.0.1 (a receiver cannot run inside Lore's tests any
 * other way): records every POST and answers what `respond` says (200 by default).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (count: number) => number = () => 200;
  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const self = receiver;
        const status = self.respond(self.received.length + 1);
        self.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status });
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server);
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} webhook requests, got ${this.received.length}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return this.received;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
