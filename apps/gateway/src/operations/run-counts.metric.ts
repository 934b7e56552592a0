import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { runsByStatus } from '@app/metrics';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';

/**
 * Feeds `transform_runs{status,stage}` from the read model when Prometheus scrapes. The
 * gateway reports it (one per deployment's API, not once per worker), read from an index.
 */
@Injectable()
export class RunCountsMetric implements OnModuleInit, OnModuleDestroy {
  private stop: () => void = () => undefined;

  constructor(@Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel) {}

  onModuleInit(): void {
    this.stop = runsByStatus.addSource(async () =>
      (await this.readModel.countRunsByStatusAndStage()).map(({ status, stage, count }) => ({
        labels: { status, stage: stage ?? 'none' },
        value: count,
      })),
    );
  }

  onModuleDestroy(): void {
    this.stop();
  }
}
