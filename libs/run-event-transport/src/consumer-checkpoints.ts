/**
 * Name of a checkpoint for one lane of the bus (a Kafka partition). Positions increase
 * within a lane but not across lanes, so each lane has its own checkpoint; the single
 * lane of the in-process bus ('') keeps the plain name.
 */
export const laneCheckpoint = (name: string, lane = ''): string => (lane ? `${name}@${lane}` : name);

/** Where a consumer group's checkpoints live (the composition root decides: the projector's sit with its documents). */
export interface ConsumerCheckpoints {
  /** The position this group has handled up to in `lane` (0: nothing yet). */
  load(group: string, lane: string): Promise<number>;
  /** Records that this group's work for everything up to `position` in `lane` is durable. */
  save(group: string, lane: string, position: number): Promise<void>;
}
