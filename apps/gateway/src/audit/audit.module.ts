import { Module } from '@nestjs/common';
import { AuditLog } from './audit-log';

/**
 * The organizations' audit log, written by the console (a member's changes) and the admin API
 * (the operator's, as `{"operator": true}`), read by the console.
 */
@Module({ providers: [AuditLog], exports: [AuditLog] })
export class AuditModule {}
