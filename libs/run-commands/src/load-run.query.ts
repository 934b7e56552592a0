import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { runStreamId } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { snapshotOf, type RunSnapshot } from './run-snapshot';

/** A run's decision state folded from its stream (the source of truth, never behind). */
export class LoadRunQuery extends Query<RunSnapshot> {
  constructor(readonly runId: string) {
    super();
  }
}

@QueryHandler(LoadRunQuery)
export class LoadRunQueryHandler implements IQueryHandler<LoadRunQuery, RunSnapshot> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ runId }: LoadRunQuery): Promise<RunSnapshot> {
    return snapshotOf(await this.store.readStream(runStreamId(runId)));
  }
}
