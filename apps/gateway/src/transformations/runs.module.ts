import { Module } from '@nestjs/common';
import { RunLinks } from '@app/run-links';
import { RunPresenter } from './run-presenter';
import { TransformationsService } from './transformations.service';

/** Runs as the API shows them: created, read and listed for an organization (the public API and the console). */
@Module({
  providers: [TransformationsService, RunPresenter, RunLinks],
  exports: [TransformationsService, RunPresenter, RunLinks],
})
export class RunsModule {}
