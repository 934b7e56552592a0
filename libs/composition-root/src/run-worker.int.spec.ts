import { Module } from '@nestjs/common';
import { createServer } from 'node:net';
import { InProcessBus } from '@app/bus';
import { RunEventsServer } from '@app/run-event-transport';
import { runWorker } from './run-worker';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** A worker with no handlers: its transport subscribes to nothing. */
@Module({
  providers: [
    {
      provide: RunEventsServer,
      useFactory: () =>
        new RunEventsServer(new InProcessBus(), { load: async () => 0, save: async () => undefined }, null as never, null as never),
    },
  ],
})
class EmptyWorker {}

describe('runWorker health probes', () => {
  it('answers /healthz and /readyz on HEALTH_PORT once the app has bootstrapped, 404 elsewhere', async () => {
    const port = await freePort();
    process.env.HEALTH_PORT = String(port);
    try {
      const worker = await runWorker(EmptyWorker, 'probe-test');
      const get = async (path: string) => {
        for (let i = 0; ; i++) {
          try {
            return await fetch(`http://127.0.0.1:${port}${path}`);
          } catch (e) {
            if (i > 50) throw e;
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      };
      expect((await get('/healthz')).status).toBe(200);
      const ready = await get('/readyz');
      expect([ready.status, await ready.json()]).toEqual([200, { app: 'probe-test', status: 'ok' }]);
      expect((await get('/other')).status).toBe(404);
      await worker.close();
    } finally {
      delete process.env.HEALTH_PORT;
    }
  });
});
