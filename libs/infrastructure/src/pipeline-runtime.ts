import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { EventRelay, InProcessBus, MESSAGE_BUS, type MessageBus } from '@app/bus';
import { CHECKPOINT_STORE, EVENT_STORE, type CheckpointStore, type EventStore } from '@app/event-store';
import { ConsumerHost, ConsumerRegistry } from '@app/processing';
import { RUN_READ_MODEL } from '@app/read-model';

type Closeable = { close?: () => Promise<void> };

/**
 * Owns the process's pipeline and adapters' lifetime. Starts this process's consumers;
 * with the in-process bus, also the relay that feeds them from the event store. That bus
 * keeps nothing across restarts, so its relay starts from the lowest checkpoint of the
 * consumers here: whatever one of them had not finished is sent again. A durable bus
 * (Kafka) is fed by the relay app instead (RelayRuntime), from its own checkpoint.
 */
@Injectable()
export class PipelineRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PipelineRuntime.name);
  private host: ConsumerHost | null = null;
  private relay: EventRelay | null = null;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CHECKPOINT_STORE) private readonly checkpoints: CheckpointStore,
    private readonly registry: ConsumerRegistry,
    @Inject(RUN_READ_MODEL) private readonly readModel: Closeable,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const consumers = this.registry.all();
    if (consumers.length === 0) return;
    this.host = new ConsumerHost(this.bus);
    for (const c of consumers) await this.host.start(c);
    if (!(this.bus instanceof InProcessBus)) {
      this.logger.log(`Consuming from the bus: ${consumers.map((c) => c.group).join(', ')}`);
      return;
    }
    this.relay = new EventRelay(this.store, this.bus, this.checkpoints, {
      name: 'relay:in-process',
      startFrom: async () => Math.min(...(await Promise.all(consumers.map((c) => c.checkpoint())))),
    });
    await this.relay.start();
    this.logger.log(`Pipeline running: ${consumers.map((c) => c.group).join(', ')}`);
  }

  async onApplicationShutdown(): Promise<void> {
    // Order matters: stop feeding, stop consuming, then close the adapters they used.
    await this.relay?.stop();
    await this.host?.stop();
    await this.bus.close();
    await this.store.close();
    await (this.checkpoints as Closeable).close?.();
    await this.readModel.close?.();
  }
}
