import { types } from 'node:util';

/**
 * The buffer under a typed array when the thread holding it may give it up entirely (move it to
 * another thread, or free it): not shared memory, which is shared anyway, and not a Node Buffer,
 * which may sit in a pool other Buffers share. Null otherwise.
 */
export function ownBuffer(view: ArrayBufferView): ArrayBuffer | null {
  return !Buffer.isBuffer(view) && types.isArrayBuffer(view.buffer) ? view.buffer : null;
}

/**
 * Gives the memory under typed arrays back now rather than at the thread's next full collection.
 * An array that lived through a long pass sits in the old generation, whose collection can be
 * seconds away while the thread goes on to other work, and its buffer (8 bytes a row for the
 * duplicates pass's numbers) counts in the process's memory until then: 15-25 MB at the start of
 * a 1M-row output, the peak of the `validators` bench case (bench/README.md). Moving a buffer out
 * (a structured clone's transfer) detaches it, and the clone that holds it now dies young: the
 * next scavenge frees it. Every view of a freed buffer is empty afterwards, so only arrays that
 * nothing reads again may be given; what is not the thread's own (`ownBuffer`) is left alone.
 */
export function freeNow(views: Iterable<ArrayBufferView | null | undefined>): void {
  const buffers = new Set<ArrayBuffer>();
  for (const view of views) {
    const buffer = view ? ownBuffer(view) : null;
    if (buffer && buffer.byteLength > 0) buffers.add(buffer);
  }
  for (const buffer of buffers) structuredClone(buffer, { transfer: [buffer] });
}
