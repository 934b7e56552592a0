/* s3rver (an S3 server for tests) in its own process, on loopback, with one bucket.
 * Its synchronous file I/O would otherwise stall the test process's event loop.
 * Prints {"port": N} on stdout when ready; removes its data folder on SIGTERM. */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const S3rver = require('s3rver');

const bucket = process.argv[2] || 'test-bucket';
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });

server.run().then(
  (address) => process.stdout.write(`${JSON.stringify({ port: address.port })}\n`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

const stop = () =>
  server.close().finally(() => {
    fs.rmSync(directory, { recursive: true, force: true });
    process.exit(0);
  });
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
