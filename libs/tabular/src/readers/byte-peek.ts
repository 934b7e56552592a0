import { Readable } from 'node:stream';

/**
 * Reads the first `bytes` of a byte stream and gives back a stream that still starts
 * with them, so a file can be sniffed before it is parsed without reading it twice.
 */
export async function peekBytes(input: Readable, bytes: number): Promise<{ head: Buffer; replay: Readable }> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < bytes && !done) {
    const next = await it.next();
    if (next.done) done = true;
    else {
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      chunks.push(chunk);
      size += chunk.length;
    }
  }
  const head = Buffer.concat(chunks);
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    if (done) return;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  }
  const replay = Readable.from(all(), { objectMode: false });
  replay.on('close', () => input.destroy());
  return { head, replay };
}
