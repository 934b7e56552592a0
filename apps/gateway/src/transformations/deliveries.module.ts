import { Module } from '@nestjs/common';
import { WebhookSendingModule } from '@app/webhook-sending';
import { DeliveriesService } from './deliveries.service';

/**
 * DeliveriesService (a run's attempts, the organization's delivery log, re-sending, test
 * events) for the public API and the console: import this module where it is needed. The
 * public controller (DeliveriesController) is the gateway module's, behind its API-key guard.
 */
@Module({ imports: [WebhookSendingModule], providers: [DeliveriesService], exports: [DeliveriesService] })
export class DeliveriesModule {}
