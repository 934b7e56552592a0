import { Inject, Injectable } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { RunState } from '@app/domain';
import {
  HEADER_SAMPLE_ROWS,
  failedAsInvalidText,
  mayScanInParts,
  parsedFromScan,
  sizeMayScanInParts,
  type IngestionOutcome,
  type PartScan,
  type SourceChoice,
} from '@app/run-source';
import { joinScanParts, type DelimitedScan } from '@app/tabular';
import { ArrivingScans, type ArrivingSource } from './arriving-scans';
import { CpuWork, type CpuTaskOptions } from './cpu-work';
import type { SourceArrival } from './source-arrival';

/**
 * Ingestion's read of a run's source (inspectStructuredFile), and a read of it again in another
 * encoding or sheet (the code page past an ASCII head, the reviewer's choice), on two CPU worker threads
 * when there are two: a big delimited file is scanned in two parts at once, split after a
 * line feed near its middle, and the parts are joined when the first ended where a row ends
 * (libs/tabular's delimited-scan-parts.ts). Any other file, or parts that cannot be joined,
 * get the whole read on one thread, as before. A delimited file uploaded through this process
 * is scanned as it arrives instead (ArrivingScans), when that scan could follow it to the end.
 */
@Injectable()
export class SourceInspector implements SourceArrival {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly cpu: CpuWork,
  ) {
    this.arriving = new ArrivingScans(cpu);
  }

  private readonly arriving: ArrivingScans;

  /**
   * Starts the threads the source's read will take (two for a file scanned in two parts) while its
   * bytes still arrive, and the scan that follows them when it is a delimited file (ArrivingScans).
   */
  sourceArriving(run: RunState, sizeBytes: number): ArrivingSource | null {
    this.cpu.warm(sizeMayScanInParts(run.filename, sizeBytes) ? 2 : 1);
    return this.arriving.follow(run, sizeBytes);
  }

  /**
   * The scan made as the source arrived when there is one that read every stored byte; else a
   * read of the stored file. A text file detected as UTF-8 from an ASCII head and refused as
   * not UTF-8 further on is read again in the code page its later bytes say (encodingPastAscii:
   * a windows-1252 list whose first accented name comes late). `onProgress` hears the rows read
   * so far (both parts together), never fewer than it heard before.
   */
  async inspect(run: RunState, { onProgress }: Pick<CpuTaskOptions, 'onProgress'> = {}): Promise<IngestionOutcome> {
    let heard = 0;
    const progress = (rows: number) => {
      if (rows <= heard) return;
      heard = rows;
      return onProgress?.(rows);
    };
    const outcome = await this.firstRead(run, progress);
    if (!failedAsInvalidText(outcome)) return outcome;
    const encoding = await this.cpu.run('sourceEncodingPastAscii', { run });
    if (!encoding) return outcome;
    return this.readStored(run, progress, { encoding });
  }

  /**
   * The stored source read again as the reviewer chose (another sheet, another encoding): a big delimited file in
   * two parts at once here too, as the reviewer waits for it.
   */
  readAgain(run: RunState, choice: SourceChoice): Promise<IngestionOutcome> {
    return this.readStored(run, () => undefined, choice);
  }

  private async firstRead(run: RunState, progress: (rows: number) => unknown): Promise<IngestionOutcome> {
    const arrived = await this.scannedOnArrival(run);
    if (arrived) {
      await progress(arrived.rows);
      return parsedFromScan(this.blobs, run, arrived, this.config.tableLimits);
    }
    return this.readStored(run, progress);
  }

  /** The stored file in two parts when it may be split (a big delimited file; never a workbook), else whole on one thread. */
  private async readStored(run: RunState, progress: (rows: number) => unknown, choice: SourceChoice = {}): Promise<IngestionOutcome> {
    const splits = this.cpu.threads >= 2 && (await mayScanInParts(this.blobs, run));
    const joined = splits ? await this.inTwoParts(run, progress, choice.encoding) : null;
    return joined ?? this.cpu.run('inspectStructuredFile', { run, ...choice }, { onProgress: progress });
  }

  private async scannedOnArrival(run: RunState): Promise<DelimitedScan | null> {
    if (!this.arriving.followed(run)) return null;
    const stored = await this.blobs.stat(run.source_key);
    return this.arriving.take(run, stored?.size ?? -1);
  }

  /** Both parts at once (each thread works out the split itself, so neither waits for the other to start); null when they cannot be joined. */
  private async inTwoParts(run: RunState, onProgress: (rows: number) => unknown, encoding?: string): Promise<IngestionOutcome | null> {
    const counted = [0, 0];
    const hear = (part: 0 | 1) => (rows: number) => {
      counted[part] = rows;
      return onProgress(counted[0] + counted[1]);
    };
    // A part that cannot be joined (or fails) stops the other: the whole read follows, or the failure is thrown.
    // Not on 'no split': the other part finds the same within milliseconds, and aborting it would end its thread.
    const stop = new AbortController();
    const settled = <T>(scan: Promise<PartScan<T>>): Promise<PartScan<T>> =>
      scan.then(
        (result) => {
          if (result === 'not plain') stop.abort();
          return result;
        },
        (err: unknown) => {
          if (stop.signal.aborted) return 'not plain';
          stop.abort();
          throw err;
        },
      );
    const options = (part: 0 | 1): CpuTaskOptions => ({ signal: stop.signal, onProgress: hear(part) });
    // Both settle before a failure is thrown, so no part's progress is recorded after the outcome.
    const [firstPart, laterPart] = await Promise.allSettled([
      settled(this.cpu.run('scanSourceFirstPart', { run, encoding }, options(0))),
      settled(this.cpu.run('scanSourceLaterPart', { run, encoding }, options(1))),
    ]);
    if (firstPart.status === 'rejected') throw firstPart.reason;
    if (laterPart.status === 'rejected') throw laterPart.reason;
    const [first, later] = [firstPart.value, laterPart.value];
    if (typeof first === 'string' || typeof later === 'string' || !isDeepStrictEqual(first.start, later.start)) return null;
    const scan = joinScanParts(first.scan, later.scan, first.start, this.config.tableLimits, HEADER_SAMPLE_ROWS);
    return scan && parsedFromScan(this.blobs, run, scan, this.config.tableLimits);
  }
}
