import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook endpoint on 127.0.0.1 that records each POST's raw body and headers and answers 200. */
export class WebhookReceiver {
  readonly received: Array<{ readonly headers: IncomingHttpHeaders; readonly body: string }> = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const received: WebhookReceiver['received'] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server);
    (receiver as { received: WebhookReceiver['received'] }).received = received;
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
