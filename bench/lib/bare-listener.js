/* Loaded into the service's process by the request cases (`node --require`), on its main thread
 * only: a bare Node http server on BENCH_BARE_LISTENER_PORT (loopback) sharing the service's
 * event loop, heap, threads and async hooks, answering every GET with the body a PUT last gave
 * it. What it serves is what any route of the service could serve at best in that process: the
 * gap between it and a bare server in a process of its own is the process's cost, not a
 * route's (bench/README.md, "The cost of one request, in the service's own process"). */
const { isMainThread } = require('node:worker_threads');

const port = Number(process.env.BENCH_BARE_LISTENER_PORT);
if (isMainThread && port > 0) {
  const http = require('node:http');
  let body = Buffer.alloc(0);
  const server = http.createServer((req, res) => {
    if (req.method === 'PUT') {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        body = Buffer.concat(chunks);
        res.writeHead(204).end();
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  // A port already taken must not end the service: the bench's first PUT then fails and says so.
  server.on('error', (err) => process.stderr.write(`bench bare listener: ${err.message}\n`));
  server.listen(port, '127.0.0.1');
  server.unref(); // the service's own stop is not held by it
}
