import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook endpoint on 127.0.0.1 that records each POST's raw body and headers and answers 200. */
export class WebhookReceiver {
  private constructor(
    private readonly server: Server,
    readonly received: ReadonlyArray<{ readonly headers: IncomingHttpHeaders; readonly body: string }>,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const received: Array<WebhookReceiver['received'][number]> = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new WebhookReceiver(server, received);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
