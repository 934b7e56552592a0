import { Readable } from 'node:stream';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { BlobStore } from '@app/blob-storage';
import type { RunState } from '@app/domain';
import { NotPlainDelimited, SourceProblem, scanDelimited, tableFormatOf, type DelimitedScan, type TableLimits } from '@app/tabular';
import { HEADER_SAMPLE_ROWS } from './inspect-structured-file';

/*
 * Ingestion's scan of a delimited source made while its bytes still arrive: the upload route
 * sends each piece of the body over a message port once it has stored it (libs/cpu-work's
 * ArrivingScans), and the scan reads them in order, so the review can be ready soon after the
 * last byte has landed instead of a whole read later.
 *
 * The port carries, in order: the body's bytes (Uint8Array pieces), then how they end: `null`,
 * every byte was sent; `{ storedFrom }`, every byte is stored, and those from that byte on were
 * not sent (the scan fell behind, and the sender stopped holding bytes for it in memory: the scan
 * reads the rest from the store); `false` (at any time, even after the end), the upload failed or
 * the sender gave up. This side answers with the bytes the scan has taken so far (a number: 0 as
 * it starts, then about every ACK_BYTES), which is how the sender knows it runs and how far
 * behind it is.
 */

/** How often the scan tells the sender how far it has read. */
export const ACK_BYTES = 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** The message that ends the bytes sent over the port. */
export type ArrivingBytesEnd = null | { storedFrom: number } | false;

/** What a scan of arriving bytes learned, and how many bytes it read (the sender compares them with the stored size). */
export interface ArrivingScan {
  scan: DelimitedScan;
  bytes: number;
}

/** The upload stopped (it failed, or the sender gave up on the scan): the bytes never all arrived. */
class UploadStopped extends Error {}

/**
 * The run's source as its bytes come over `port`, then from `storedFrom(byte)` when the sender
 * says so. Ends when `null` arrives or the stored rest is read; fails with UploadStopped when
 * `false` arrives or the port closes first. The sender bounds how far ahead it runs (by the
 * acknowledgements).
 *
 * A piece is handed to the scan only when it asks for more, and each time it asks, the port's
 * queue is read then and there (receiveMessageOnPort): the scan takes pieces already here
 * without its event loop turning, so a `false` queued behind them would otherwise wait until it
 * had scanned them all, holding its thread (up to the sender's bound, tens of MB) after the
 * sender gave it up and ingestion wanted the thread for the stored file.
 */
export function arrivingBytes(
  port: MessagePort,
  onTaken: (bytes: number) => void,
  storedFrom: (byte: number) => Promise<Readable>,
): { input: Readable; received: () => number } {
  let received = 0;
  let acknowledged = 0;
  let ended = false; // no more bytes will come over the port
  let lastPushed = false; // the end was handed to the scan
  let restPending = false; // the stored rest is being opened
  let rest: Readable | null = null;
  /** Bytes arrived and not yet handed to the scan (from `head` on: no shift() of a long array), and how many. */
  let held: Buffer[] = [];
  let head = 0;
  let heldBytes = 0;
  let wanted = true; // the scan asked for more than it was given
  const handOn = () => {
    while (wanted && head < held.length) {
      const piece = held[head];
      held[head++] = EMPTY; // let go of it here: the stream holds it now
      heldBytes -= piece.length;
      wanted = input.push(piece);
    }
    if (head === held.length && head > 0) {
      held = [];
      head = 0;
    }
    if (wanted && held.length === 0) {
      if (ended && !restPending && rest === null && !lastPushed) {
        lastPushed = true;
        input.push(null);
      }
      rest?.resume();
    }
  };
  const input = new Readable({
    read() {
      for (let m = receiveMessageOnPort(port); m !== undefined && !this.destroyed; m = receiveMessageOnPort(port))
        onMessage(m.message as Uint8Array | ArrivingBytesEnd);
      if (this.destroyed) return;
      wanted = true;
      // What the scan has taken: what arrived, less what waits here and in the stream.
      const taken = received - heldBytes - this.readableLength;
      if (taken - acknowledged >= ACK_BYTES) {
        acknowledged = taken;
        onTaken(taken);
      }
      handOn();
    },
    destroy(err, done) {
      rest?.destroy();
      held = [];
      head = 0;
      heldBytes = 0;
      done(err);
    },
  });
  const add = (piece: Buffer): boolean => {
    received += piece.length;
    held.push(piece);
    heldBytes += piece.length;
    handOn();
    return wanted;
  };
  const readStored = async (from: number) => {
    const stored = await storedFrom(from);
    restPending = false;
    if (input.destroyed) {
      // Given up while the rest was being opened: nobody reads it. A file stream may still be opening, and the open may
      // fail once the file is gone (the run deleted): with no listener that error would end the process.
      stored.once('error', () => undefined);
      return void stored.destroy();
    }
    rest = stored;
    // The stored rest is read as fast as the scan takes it (paused while it has enough).
    stored.on('data', (piece: Buffer) => void (add(piece) || stored.pause()));
    stored.once('end', () => {
      rest = null;
      handOn();
    });
    stored.once('error', (err) => input.destroy(err));
  };
  // `false` stops the scan even after the last byte came (the run was refused): the port stays open until the scan ends.
  const onMessage = (piece: Uint8Array | ArrivingBytesEnd) => {
    if (input.destroyed) return; // stopped: nothing more is kept
    if (piece === false) input.destroy(new UploadStopped('The upload stopped, or the scan is no longer wanted.'));
    else if (ended) return;
    else if (piece === null) {
      ended = true;
      handOn();
    } else if ('storedFrom' in piece) {
      ended = true;
      restPending = true;
      readStored(piece.storedFrom).catch((err: Error) => input.destroy(err));
    } else add(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
  };
  port.on('message', onMessage);
  port.on('close', () => {
    if (!ended) input.destroy(new UploadStopped('The upload stopped before its last byte.'));
    ended = true;
  });
  return { input, received: () => received };
}

/**
 * The scan of a delimited run source from the bytes arriving over `port`, and the rest from
 * the store when the sender stopped sending (what
 * `inspectStructuredFile`'s scan learns of the stored file); 'not scanned' when the upload
 * stopped, the file's quoting needs papaparse's own rules, or it breaks a limit or is not
 * text: ingestion then reads the stored file as it would have, and names any refusal.
 */
export async function scanArrivingSource(
  port: MessagePort,
  blobs: BlobStore,
  run: RunState,
  limits: TableLimits,
  onProgress: (rows: number) => void,
): Promise<ArrivingScan | 'not scanned'> {
  const { input, received } = arrivingBytes(
    port,
    (bytes) => port.postMessage(bytes),
    (byte) => blobs.openRead(run.source_key, { start: byte }),
  );
  const format = tableFormatOf(run.filename ?? '');
  port.postMessage(0); // started: the sender may now tell it to give way
  try {
    if (format?.format !== 'delimited') return 'not scanned';
    const scan = await scanDelimited(input, format.delimiter, { limits, headRows: HEADER_SAMPLE_ROWS, onProgress });
    return { scan, bytes: received() };
  } catch (err) {
    if (err instanceof UploadStopped || err instanceof NotPlainDelimited || err instanceof SourceProblem) return 'not scanned';
    throw err;
  } finally {
    // Whatever still arrives (the scan stopped early) is dropped, not queued.
    port.close();
    input.destroy();
  }
}
