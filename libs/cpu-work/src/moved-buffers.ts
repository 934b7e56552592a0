import { types } from 'node:util';
import { Piscina } from 'piscina';
import { ownBuffer } from '@app/run-source';

/**
 * The memory under the typed arrays of a task's input or result (plain objects and arrays
 * walked), each buffer once: what is moved between threads instead of copied. Moving a buffer
 * takes it from the sender, so only data the sender gives up entirely may be moved (`ownBuffer`).
 */
export function buffersIn(value: unknown, found = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (types.isArrayBufferView(value)) {
    const buffer = ownBuffer(value);
    if (buffer) found.add(buffer);
  } else if (Array.isArray(value)) {
    for (const item of value) buffersIn(item, found);
  } else if (isPlainObject(value)) {
    for (const item of Object.values(value)) buffersIn(item, found);
  }
  return [...found];
}

/** An object literal's kind (of any realm: a structured clone's objects are of the main one), not a class instance or a Map. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** A task's result as a worker thread returns it for its typed arrays to move to the asking thread (piscina's Transferable). */
export function movedResult(result: unknown): unknown {
  const buffers = buffersIn(result);
  return Piscina.move({
    get [Piscina.transferableSymbol]() {
      return buffers;
    },
    get [Piscina.valueSymbol]() {
      return result;
    },
  } as never);
}
