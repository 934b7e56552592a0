import { Logger, Module, type OnModuleInit } from '@nestjs/common';

/**
 * Webhook delivery (transformation.finished / .review.canceled / .failed) is not built
 * yet: it is issue 5. Until then no webhook is sent and `notification_status` stays
 * null; this module says so at start-up rather than pretending to deliver.
 */
@Module({})
export class NotifierModule implements OnModuleInit {
  onModuleInit(): void {
    new Logger('Notifier').warn('Webhook delivery is not implemented yet: no webhooks are sent (notification_status stays null).');
  }
}
