import { Module } from '@nestjs/common';
import { RunLinks } from '@app/run-links';
import { DeliveryScheduler } from './delivery-scheduler';
import { NotifierHandlers } from './notifier.handlers';
import { WebhookSender } from './webhook-sender';

/** Webhooks: the handlers record what is owed; the scheduler delivers it (docs/webhooks.md). */
@Module({ controllers: [NotifierHandlers], providers: [DeliveryScheduler, WebhookSender, RunLinks] })
export class NotifierModule {}
