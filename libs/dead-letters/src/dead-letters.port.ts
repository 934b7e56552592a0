import type { StoredEvent } from '@app/contracts';

/**
 * An event a consumer group could not handle (a deterministic failure, or the same error
 * on every one of its attempts). The group moved past it; the run it belongs to was failed.
 */
export interface DeadLetter {
  /** `<group>/<event_id>`: one letter per group and event, however often it died. */
  id: string;
  group: string;
  /** The bus lane (Kafka partition) it came from; '' for the in-process bus. */
  lane: string;
  event: StoredEvent;
  error: { name: string; message: string };
  attempts: number;
  dead_at: string;
  /** Set by the operator (`dead-letters:replay`); the group's transport hands the event to its handler again. */
  replay_requested_at: string | null;
  /** The request the last replay served (a copy of replay_requested_at: one clock only, the operator's). */
  replayed_at: string | null;
  /** How the last replay ended: null (none yet), 'handled', or the error it died of again. */
  replay_outcome: string | null;
}

export interface DeadLetterStore {
  /** Records a letter; a letter with the same id is replaced (the latest death and its attempts). */
  record(letter: Omit<DeadLetter, 'replay_requested_at' | 'replayed_at' | 'replay_outcome'>): Promise<void>;
  /** Newest first. */
  list(limit: number): Promise<DeadLetter[]>;
  get(id: string): Promise<DeadLetter | null>;
  /** Asks for a replay; false when there is no such letter. */
  requestReplay(id: string, at: string): Promise<boolean>;
  /** Letters of these groups whose replay was asked for and has not happened since, oldest first. */
  replaysDue(groups: string[], limit: number): Promise<DeadLetter[]>;
  /** Takes a due replay for this process (atomically: one replica runs it); false when it is not due any more. */
  claimReplay(id: string): Promise<boolean>;
  /** Records how the claimed replay ended. */
  markReplayed(id: string, outcome: string): Promise<void>;
  close(): Promise<void>;
}

export const DEAD_LETTER_STORE = Symbol('DEAD_LETTER_STORE');

export const deadLetterId = (group: string, event: Pick<StoredEvent, 'event_id'>): string => `${group}/${event.event_id}`;
