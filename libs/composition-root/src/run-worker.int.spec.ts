import { Controller, Module } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MESSAGE_BUS, type MessageBus } from '@app/bus';
import { loadConfig } from '@app/config';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { InfrastructureModule } from './infrastructure.module';
import { runWorker } from './run-worker';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** One consumer group, "probe", that handles nothing it will be sent. */
@Controller()
class ProbeHandlers {
  @EventPattern('NeverSent', { consumer: 'probe' })
  handle(): void {}
}

describe('runWorker: health and metrics on HEALTH_PORT', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'run-worker-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers liveness, readiness (stores and consumer groups, via terminus) and Prometheus metrics; readiness fails when the event store does', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', EVENT_STORE_POLL_MS: '50' });
    @Module({ imports: [InfrastructureModule.forRoot(config)], controllers: [ProbeHandlers] })
    class ProbeWorker {}

    const port = await freePort();
    process.env.HEALTH_PORT = String(port);
    try {
      const worker = await runWorker(ProbeWorker, 'probe-test');
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
      expect(await (await get('/healthz')).json()).toEqual({ status: 'ok' });
      const ready = await get('/readyz');
      const report = await ready.json();
      expect(ready.status).toBe(200);
      expect(report.info).toMatchObject({
        event_store: { status: 'up' },
        read_model: { status: 'up' },
        blob_store: { status: 'up' },
        consumers: { status: 'up', groups: ['probe'] },
        process: { status: 'up' },
      });

      const metrics = await get('/metrics');
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      const text = await metrics.text();
      expect(text).toMatch(/^transform_consumer_lag_events\{group="probe",lane=""\} \d+$/m);
      expect(text).toContain('# TYPE transform_webhook_attempts_total counter');
      expect(text).toContain('process_resident_memory_bytes');
      expect((await get('/other')).status).toBe(404);

      // The in-process feeder's reads fail: it starts again with back-off, and is not ready while it is down.
      const store = worker.app.get<EventStore>(EVENT_STORE);
      const readAll = jest.spyOn(store, 'readAll').mockRejectedValue(new Error('disk I/O error'));
      let feederDown: Response | null = null;
      for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
        feederDown = await get('/readyz');
        if (feederDown.status === 503) break;
      }
      expect(feederDown!.status).toBe(503);
      expect((await feederDown!.json()).error).toEqual({
        loops: {
          status: 'down',
          problems: [{ loop: 'relay:in-process/read', problem: expect.stringContaining('disk I/O error') }],
        },
      });
      expect(await (await get('/metrics')).text()).toMatch(/^transform_loop_restarts_total\{loop="relay:in-process\/read"\} [1-9]\d*$/m);
      readAll.mockRestore();
      let feederBack: Response | null = null;
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
        feederBack = await get('/readyz');
        if (feederBack.status === 200) break;
      }
      expect(feederBack!.status).toBe(200);

      // The group's consumer stops (a crash kafkajs does not restart ends the same way): not ready.
      await worker.app.get<MessageBus>(MESSAGE_BUS).close();
      const stopped = await get('/readyz');
      expect(stopped.status).toBe(503);
      expect((await stopped.json()).error).toEqual({
        consumers: { status: 'down', groups: ['probe'], problems: [{ group: 'probe', problem: 'not consuming (stopped or crashed)' }] },
      });

      // The event store stops answering (its reads fail): not ready either, and it says why.
      jest.spyOn(worker.app.get<EventStore>(EVENT_STORE), 'headPosition').mockRejectedValue(new Error('event store unreachable'));
      const down = await get('/readyz');
      expect(down.status).toBe(503);
      expect((await down.json()).error).toMatchObject({ event_store: { status: 'down', message: 'event store unreachable' } });
      // Liveness does not depend on the stores: restarting the process would not bring them back.
      expect((await get('/healthz')).status).toBe(200);
      await worker.close().catch(() => undefined);
    } finally {
      delete process.env.HEALTH_PORT;
    }
  });
});
