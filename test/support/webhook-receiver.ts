import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { listenOnLoopback } from './suite-resources';

export type Behaviour = 'ok' | 'echo' | 'error' | 'slow' | 'reset' | 'redirect' | 'rate-limited' | 'endless-body';
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A webhook receiver on loopback. Each request takes the next behaviour from `plan`
 * (then `fallback`): 200, 200 with the request's body, 500, no answer before the timeout, connection reset, a 302 to
 * /elsewhere, 429 with Retry-After, or a 200 whose body never ends.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  plan: Behaviour[] = [];
  fallback: Behaviour = 'ok';
  retryAfterSeconds = 1;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const behaviour = this.plan.shift() ?? this.fallback;
        switch (behaviour) {
          case 'ok':
            res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
            break;
          case 'echo':
            res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat(chunks));
            break;
          case 'error':
            res.writeHead(500).end('boom');
            break;
          case 'slow':
            setTimeout(() => {
              if (!res.destroyed) res.writeHead(200).end('late');
            }, 3000);
            break;
          case 'reset':
            req.socket.destroy();
            break;
          case 'redirect':
            res.writeHead(302, { location: `${this.url}/elsewhere` }).end();
            break;
          case 'rate-limited':
            res.writeHead(429, { 'retry-after': String(this.retryAfterSeconds) }).end();
            break;
          case 'endless-body': {
            res.writeHead(200, { 'content-type': 'application/octet-stream' });
            const chunk = Buffer.alloc(64 * 1024, 120);
            const timer = setInterval(() => {
              if (!res.write(chunk) || res.destroyed) {
                /* keep going until closed */
              }
            }, 5);
            res.on('close', () => clearInterval(timer));
            break;
          }
        }
      });
    });
    const listening = await listenOnLoopback(this.server, 'webhook receiver');
    this.url = listening.baseUrl;
    this.close = listening.close;
  }

  private close: () => Promise<void> = async () => undefined;

  stop(): Promise<void> {
    return this.close();
  }

  for(runId: string): Received[] {
    return this.received.filter((r) => r.headers['x-service-id'] === runId);
  }

  async waitFor(runId: string, count: number, timeoutMs = 10000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.for(runId).length < count) {
      if (Date.now() > deadline) throw new Error(`Receiver got ${this.for(runId).length} of ${count} deliveries for ${runId}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.for(runId);
  }
}
