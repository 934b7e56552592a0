/**
 * A map that holds at most `capacity` entries: past it, the oldest entry goes (first in,
 * first out; a Map keeps insertion order). For values that are cheap to compute again and
 * are asked for many times in a row (a polled run's links).
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.capacity && !this.entries.has(key)) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}
