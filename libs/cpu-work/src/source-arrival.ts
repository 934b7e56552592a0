import type { RunState } from '@app/domain';
import type { ArrivingSource } from './arriving-scans';

/**
 * Told by the upload route when a run's source begins to arrive, in a process that also reads
 * sources (SourceInspector, in one process; a gateway on its own has none), so the read's
 * threads start while the bytes are still coming, and a delimited file is scanned as it arrives.
 */
export interface SourceArrival {
  /**
   * `sizeBytes`: the size the upload declared (Infinity when it declared none). Returns at once; it
   * never fails the upload. The route hands the body's bytes, as it stores them, to what it answers.
   */
  sourceArriving(run: RunState, sizeBytes: number): ArrivingSource | null;
}
