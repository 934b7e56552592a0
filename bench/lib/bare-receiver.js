/* The least an upload asks of the machine: a bare Node http server, in a process of its own (started
 * with `fork`), that stores each PUT's body in a file, fsyncs it, answers 200 and removes the file.
 * The floor bench (csv-floor.bench.js) times the csv case's file sent to it by the bench's own
 * upload client (service.js's putFile): what any service must spend to receive the file durably,
 * with the client on the same two cores. Its port goes to the parent over IPC. */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bare-receiver-'));
let received = 0;

const server = http.createServer(async (req, res) => {
  if (req.method !== 'PUT') return res.writeHead(405).end();
  const file = path.join(dir, `body-${++received}`);
  try {
    const out = fs.createWriteStream(file);
    await pipeline(req, out);
    const fd = fs.openSync(file, 'r+');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    res.writeHead(200).end();
  } catch (err) {
    res.writeHead(500).end(String(err));
  } finally {
    fs.rmSync(file, { force: true });
  }
});
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
process.on('disconnect', () => {
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
