import { Module } from '@nestjs/common';
import { ApplyRunCommandHandler } from './apply-run-command.handler';
import { LoadRunQueryHandler } from './load-run.query';

/** The command and query handlers of runs, on @nestjs/cqrs's CommandBus and QueryBus (CqrsModule.forRoot() is imported once, by the composition root). */
@Module({
  providers: [ApplyRunCommandHandler, LoadRunQueryHandler],
})
export class RunCommandsModule {}
