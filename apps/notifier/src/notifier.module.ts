import { Module, type OnModuleInit } from '@nestjs/common';
import { ConsumerRegistry } from '@app/processing';
import { RunLinks } from '@app/run-links';
import { DeliveryScheduler } from './delivery-scheduler';
import { NotifierConsumer } from './notifier.consumer';
import { WebhookSender } from './webhook-sender';

/** Webhooks: the consumer records what is owed; the scheduler delivers it (docs/webhooks.md). */
@Module({ providers: [NotifierConsumer, DeliveryScheduler, WebhookSender, RunLinks] })
export class NotifierModule implements OnModuleInit {
  constructor(
    private readonly registry: ConsumerRegistry,
    private readonly consumer: NotifierConsumer,
  ) {}
  onModuleInit(): void {
    this.registry.register(this.consumer);
  }
}
