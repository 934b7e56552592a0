import { Module } from '@nestjs/common';
import { AdminGuard } from '../http/auth.guard';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';

/** The admin API (/admin/v1): a module of its own so that its OpenAPI document is built from it alone. */
@Module({ controllers: [AdminController], providers: [AdminService, AdminGuard] })
export class AdminModule {}
