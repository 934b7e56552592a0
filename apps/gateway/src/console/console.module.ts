import { Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module';
import { ConsolePageController } from './console-page.controller';
import { ConsoleWeb } from './console-web';
import { ProviderConnectionCheck } from './provider-test/provider-check';
import { SchemaTrialService } from './try-file/schema-trial';
import { DeliveriesModule } from '../transformations/deliveries.module';
import { RunsModule } from '../transformations/runs.module';
import { ConsoleDeliveriesController } from './server/deliveries.controller';
import { ConsoleUsageController } from './server/usage.controller';
import { ConsoleRunsController } from './server/runs.controller';
import { AdminInvitationsController } from './server/admin-invitations.controller';
import { ConsoleApiKeysController } from './server/api-keys.controller';
import { ConsoleAuditController } from './server/audit.controller';
import { AuditModule } from '../audit/audit.module';
import { ConsoleAuthGuard } from './server/console-auth.guard';
import { ConsoleSessions } from './server/console-sessions';
import { Invitations } from './server/invitations';
import { ConsoleMembersController } from './server/members.controller';
import { ConsoleProvidersController } from './server/providers.controller';
import { ConsoleSchemasController } from './server/schemas.controller';
import { SessionController } from './server/session.controller';
import { SignInThrottle } from './server/sign-in-throttle';
import { ConsoleWebhookController } from './server/webhook.controller';

/**
 * The customer console (docs/console.md): its JSON API under /console/api (server/) and its
 * page (page/, web/). The admin API's command handlers do the work of keys, schemas,
 * providers and webhook settings; the console scopes them to the member's organization.
 */
@Module({
  imports: [AdminModule, AuditModule, RunsModule, DeliveriesModule],
  controllers: [
    SessionController,
    AdminInvitationsController,
    ConsoleApiKeysController,
    ConsoleSchemasController,
    ConsoleProvidersController,
    ConsoleWebhookController,
    ConsoleMembersController,
    ConsoleAuditController,
    ConsoleRunsController,
    ConsoleDeliveriesController,
    ConsoleUsageController,
    ConsolePageController,
  ],
  providers: [ConsoleWeb, SchemaTrialService, ProviderConnectionCheck, ConsoleSessions, ConsoleAuthGuard, SignInThrottle, Invitations],
  exports: [Invitations],
})
export class ConsoleModule {}
