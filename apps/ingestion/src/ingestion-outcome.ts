import type { RunError, SourceParsed } from '@app/contracts';

/** What reading a run's source ended with: the parsed source, or why the run fails. */
export type IngestionOutcome = { parsed: SourceParsed } | { failed: RunError };
