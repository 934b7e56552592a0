import { Module } from '@nestjs/common';
import { WebhookTestEvents } from './test-event';
import { WebhookSender } from './webhook-sender';

/** The webhook sender and test events, for the notifier and the gateway (needs APP_CONFIG and DIRECTORY, from the infrastructure). */
@Module({ providers: [WebhookSender, WebhookTestEvents], exports: [WebhookSender, WebhookTestEvents] })
export class WebhookSendingModule {}
