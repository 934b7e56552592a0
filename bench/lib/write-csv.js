/* Writes a generated CSV to a file in 64 KiB pieces, waiting for the stream to drain, so a
 * million-row file never sits in memory. `line(i)` is row i (from 1), without its newline. */
const fs = require('node:fs');

async function writeCsv(file, header, rows, line) {
  const out = fs.createWriteStream(file);
  const write = (s) => (out.write(s) ? null : new Promise((r) => out.once('drain', r)));
  await write(`${header}\n`);
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    chunk += `${line(i)}\n`;
    if (chunk.length > 65536) {
      const p = write(chunk);
      chunk = '';
      if (p) await p;
    }
  }
  await write(chunk);
  await new Promise((r) => out.end(r));
}

module.exports = { writeCsv };
