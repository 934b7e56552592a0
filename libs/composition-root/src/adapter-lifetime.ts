import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { MESSAGE_BUS, type MessageBus } from '@app/bus';
import { CHECKPOINT_STORE, EVENT_STORE, type CheckpointStore, type EventStore } from '@app/event-store';
import { DEAD_LETTER_STORE } from '@app/dead-letters';
import { DIRECTORY } from '@app/directory';
import { ACCOUNT_STORE } from '@app/accounts';
import { LEASE_STORE } from '@app/leases';
import { RUN_READ_MODEL } from '@app/read-model';
import { DELIVERY_LOG } from '@app/read-model/delivery-log.port';

type Closeable = { close?: () => Promise<void> };

/**
 * Closes the adapters when the process stops. Nest closes the run-events transport
 * (feeding and consuming) before the shutdown hooks run, so nothing uses them by then.
 */
@Injectable()
export class AdapterLifetime implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CHECKPOINT_STORE) private readonly checkpoints: CheckpointStore,
    @Inject(RUN_READ_MODEL) private readonly readModel: Closeable,
    @Inject(DELIVERY_LOG) private readonly deliveryLog: Closeable,
    @Inject(DIRECTORY) private readonly directory: Closeable,
    @Inject(ACCOUNT_STORE) private readonly accounts: Closeable,
    @Inject(DEAD_LETTER_STORE) private readonly deadLetters: Closeable,
    @Inject(LEASE_STORE) private readonly leases: Closeable,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
    await this.store.close();
    await (this.checkpoints as Closeable).close?.();
    await this.readModel.close?.();
    await this.deliveryLog.close?.();
    await this.directory.close?.();
    await this.accounts.close?.();
    await this.deadLetters.close?.();
    await this.leases.close?.();
  }
}
