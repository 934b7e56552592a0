import { Logger } from '@nestjs/common';
import { types } from 'node:util';
import { MessageChannel } from 'node:worker_threads';
import type { RunState } from '@app/domain';
import { sizeMayScanInParts, type ArrivingBytesEnd, type ArrivingScan } from '@app/run-source';
import { tableFormatOf, type DelimitedScan } from '@app/tabular';
import type { CpuWork } from './cpu-work';

/**
 * The bytes of a run's source as the upload route stores them, handed on to the scan that
 * follows them. Every method returns at once and never fails the upload.
 */
export interface ArrivingSource {
  /**
   * A piece of the body, in order, once it is stored. The caller gives it up: a piece that is all
   * of its memory (a socket read's) moves to the scan's thread as it is, one that shares its
   * memory with others is copied first, and one under GATHER_UNDER_BYTES is copied into a block
   * sent once full (or as the upload ends).
   */
  bytes(piece: Uint8Array): void;
  /** Every byte is stored: `size` bytes in all. */
  arrived(size: number): void;
  /** The upload failed or was refused: there will be no more bytes, and nothing is kept. */
  lost(): void;
}

/**
 * How far the scan may fall behind the upload (what it has not read waits in memory); past it, it
 * reads the rest from the store. Its thread takes 0.2-1 s to start while an upload keeps the
 * machine busy: at 40 MB/s, 24 MB or more have arrived before it reads the first (bench/README.md).
 */
export const MAX_BEHIND_BYTES = 32 * 1024 * 1024;

/**
 * The memory under a piece when the piece is all of it, so that moving it takes nothing from any
 * other view; else null. Node's pooled buffers are never all of their pool.
 */
const aloneIn = (piece: Uint8Array): ArrayBuffer | null =>
  piece.byteOffset === 0 && types.isArrayBuffer(piece.buffer) && piece.byteLength === piece.buffer.byteLength ? piece.buffer : null;

/**
 * Pieces smaller than this are gathered into blocks of GATHER_BYTES before they go to the scan.
 * The service runs with MALLOC_MMAP_THRESHOLD_=65536 (docs/files.md, "Memory"): a body sent with
 * its length comes in 64 KiB pieces with pages of their own, given back when freed; a chunked one
 * (no length, as `fetch` streams a file) comes in pieces under 64 KiB (the chunks' framing cuts
 * each 64 KiB read in two), which glibc takes from its main arena. Held up to MAX_BEHIND_BYTES for
 * a scan that cannot give up early (no size declared), they grew that arena to 40-50 MB resident,
 * kept to the end of the output, against 12-19 MB with the length (bench:large's `rows` case, peak
 * 279-293 MB chunked; gathered, the arena 18-35 MB and the peak 256-268 MB, on a loaded machine).
 */
export const GATHER_UNDER_BYTES = 64 * 1024;
/** The size of a block that gathers small pieces: over the mmap threshold, its pages are its own. */
export const GATHER_BYTES = 1024 * 1024;

/** How often a followed upload checks whether other file work waits for its thread. */
const GIVE_WAY_CHECK_MS = 250;

/** A scan whose run's ingestion never asked for it (the run's upload was refused after all) is dropped then. */
const UNCLAIMED_FOR_MS = 10 * 60_000;

interface Follower {
  /** The scan's outcome: null when it gave up or could not scan the file. */
  scan: Promise<ArrivingScan | null>;
  /** The bytes stored in all, once the upload ended. */
  size: number | null;
  forget: NodeJS.Timeout | null;
}

/**
 * Delimited sources scanned while their bytes arrive (run-source's scanArrivingSource, on a
 * file-work thread), so that ingestion, when the upload has ended, finds the scan done or
 * nearly done instead of reading the whole file again.
 *
 * The bytes it has not read yet wait in memory: when it falls more than MAX_BEHIND_BYTES
 * behind the upload, no more are sent, and it reads the rest from the store once the upload
 * has ended. One at a time: the scan holds a file-work thread for as long as the upload lasts,
 * so a second upload is not followed, and any file work that must wait for a thread (checked
 * once the scan is running) makes the scan give way; so does an upload that ends with half the
 * file or more still to scan (two threads reading the stored file end sooner). Ingestion then
 * reads the stored file as it always did. Nothing is stored: a scan lives in this process's memory until ingestion takes it.
 */
export class ArrivingScans {
  private readonly followers = new Map<string, Follower>();
  private following = false;
  private readonly logger = new Logger(ArrivingScans.name);

  constructor(
    private readonly cpu: CpuWork,
    private readonly maxBehindBytes = MAX_BEHIND_BYTES,
  ) {}

  /**
   * Starts the scan of a run's delimited source as its bytes begin to arrive (`declaredBytes`: the
   * size the upload declared, Infinity when none); null for any other file, or while another is followed.
   */
  follow(run: RunState, declaredBytes = Number.POSITIVE_INFINITY): ArrivingSource | null {
    if (tableFormatOf(run.filename ?? '')?.format !== 'delimited' || this.following) return null;
    this.following = true;
    const { port1: port, port2 } = new MessageChannel();
    const stop = new AbortController();
    let open = true;
    let sent = 0;
    let taken = -1; // no answer yet: the scan is still waiting for its thread
    let behind = false;
    /** Small pieces gathered and not sent yet (GATHER_UNDER_BYTES), and how many bytes of the block they fill. */
    let block: Uint8Array | null = null;
    let gathered = 0;
    // A block is no bigger than the bytes the scan may fall behind by (tests follow with small budgets).
    const blockBytes = Math.min(GATHER_BYTES, Math.max(this.maxBehindBytes, 1));
    port.on('message', (bytes: number) => (taken = bytes));
    /** Sends `moved` (given up by the caller) to the scan; false when it could not be sent (the scan is then given up). */
    const send = (piece: Uint8Array, moved: ArrayBuffer): boolean => {
      const bytes = piece.byteLength; // read first: a piece moved is empty
      try {
        port.postMessage(piece, [moved]);
      } catch (err) {
        giveUp(`a piece could not be sent: ${(err as Error).message}`); // never the upload's failure
        return false;
      }
      sent += bytes;
      return true;
    };
    /** Sends the block of gathered pieces, when it holds any. */
    const sendGathered = (): boolean => {
      if (!block || gathered === 0) return true;
      const full = block;
      const bytes = gathered;
      block = null;
      gathered = 0;
      return send(new Uint8Array(full.buffer, 0, bytes), full.buffer as ArrayBuffer);
    };
    /** Whether half a big file or more is left to scan: two threads reading the stored file from scratch end sooner. */
    const halfLeft = (size: number) =>
      this.cpu.threads >= 2 && sizeMayScanInParts(run.filename, size) && size - Math.max(taken, 0) > size / 2;
    // Checked while the body stalls too, not only as pieces come: a slow client must not hold the thread from other work.
    const watch = setInterval(() => {
      if (taken >= 0 && this.cpu.waiting > 0) giveUp('other file work waits for a thread');
    }, GIVE_WAY_CHECK_MS).unref();
    const close = () => {
      if (!open) return;
      open = false;
      this.following = false;
      block = null;
      clearInterval(watch);
      port.close();
    };
    const giveUp = (why: string) => {
      if (!open) return;
      this.logger.debug(`Run ${run.id}: the scan following the upload gives up (${why}); ingestion reads the stored file.`);
      port.postMessage(false satisfies ArrivingBytesEnd);
      // Still waiting for a thread: taken out of the queue, with the pieces sent to it.
      if (taken < 0) stop.abort();
      close();
      this.drop(run.id);
    };
    const follower: Follower = {
      scan: this.cpu.run('scanArrivingSource', { run, bytes: port2 }, { ports: [port2], signal: stop.signal }).then(
        (result) => (result === 'not scanned' ? null : result),
        (err: Error) => {
          if (!stop.signal.aborted) this.logger.warn(`Run ${run.id}: the scan following the upload failed: ${err.message}`);
          return null;
        },
      ),
      size: null,
      forget: null,
    };
    void follower.scan.then((result) => {
      close();
      if (!result) this.drop(run.id); // nothing to take
    });
    this.followers.set(run.id, follower);
    return {
      bytes: (piece) => {
        if (!open) return;
        if (taken >= 0 && this.cpu.waiting > 0) return giveUp('other file work waits for a thread');
        if (behind) return;
        if (sent + gathered - Math.max(taken, 0) > this.maxBehindBytes) {
          // Too far behind so early that two threads would end sooner: given up now, its memory freed.
          if (halfLeft(declaredBytes)) return giveUp(`${Math.max(taken, 0)} of ${declaredBytes} bytes scanned, ${sent} sent`);
          // Else no more bytes are held for it: it reads the rest from the store once stored (what was gathered is sent first).
          behind = true;
          sendGathered();
          return;
        }
        const bytes = piece.byteLength; // read first: a piece moved is empty
        if (bytes === 0) return;
        if (bytes < GATHER_UNDER_BYTES) {
          // Copied into the block (the piece itself is freed soon, and its memory taken again by the next one).
          for (let at = 0; at < bytes;) {
            block ??= new Uint8Array(blockBytes);
            const n = Math.min(bytes - at, blockBytes - gathered);
            block.set(piece.subarray(at, at + n), gathered);
            gathered += n;
            at += n;
            if (gathered === blockBytes && !sendGathered()) return;
          }
          return;
        }
        if (!sendGathered()) return; // in order: what was gathered goes first
        const moved = aloneIn(piece) ?? new Uint8Array(piece).buffer;
        send(new Uint8Array(moved), moved);
      },
      arrived: (size) => {
        if (!open || !sendGathered()) return;
        if (behind ? size < sent : size !== sent) return giveUp(`${sent} bytes sent of ${size} stored`);
        if (halfLeft(size)) return giveUp(`${Math.max(taken, 0)} of ${size} bytes scanned when the upload ended`);
        port.postMessage((behind ? { storedFrom: sent } : null) satisfies ArrivingBytesEnd);
        this.logger.debug(
          `Run ${run.id}: the upload ended (${size} bytes) with ${Math.max(taken, 0)} scanned and ${sent} sent to the scan.`,
        );
        follower.size = size;
        follower.forget = setTimeout(() => this.drop(run.id), UNCLAIMED_FOR_MS).unref();
      },
      lost: () => {
        giveUp('the upload did not complete');
        this.drop(run.id);
      },
    };
  }

  /** Whether a scan of the run's source followed its upload (and is not taken yet). */
  followed(run: RunState): boolean {
    return this.followers.has(run.id);
  }

  /**
   * The scan of the run's source made while it arrived, when it read exactly the `storedSize`
   * bytes stored; null when there is none (another process received the upload, the scan gave
   * up or could not read the file). Taken once.
   */
  async take(run: RunState, storedSize: number): Promise<DelimitedScan | null> {
    const follower = this.followers.get(run.id);
    this.drop(run.id);
    if (!follower || follower.size !== storedSize) return null;
    const result = await follower.scan;
    return result && result.bytes === storedSize ? result.scan : null;
  }

  private drop(runId: string): void {
    const follower = this.followers.get(runId);
    if (follower?.forget) clearTimeout(follower.forget);
    this.followers.delete(runId);
  }
}
