import { Module } from '@nestjs/common';
import { RunLinks } from '@app/run-links';
import { WebhookSendingModule } from '@app/webhook-sending';
import { DeliveryScheduler } from './delivery-scheduler';
import { NotifierHandlers } from './notifier.handlers';

/** Webhooks: the handlers record what is owed; the scheduler delivers it (docs/webhooks.md). */
@Module({ imports: [WebhookSendingModule], controllers: [NotifierHandlers], providers: [DeliveryScheduler, RunLinks] })
export class NotifierModule {}
