/**
 * A command the run's current state refuses. `code` is stable and machine-readable;
 * the gateway turns it into a 409 (or 403/422 where noted) in the spec's envelope.
 */
export class CommandRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CommandRefused';
  }
}
