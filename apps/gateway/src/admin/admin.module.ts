import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AdminGuard } from '../http/auth.guard';
import { AdminController } from './admin.controller';
import { ADMIN_HANDLERS } from './commands';

/** The admin API (/admin/v1): a module of its own so that its OpenAPI document is built from it alone. */
@Module({ imports: [AuditModule], controllers: [AdminController], providers: [...ADMIN_HANDLERS, AdminGuard] })
export class AdminModule {}
