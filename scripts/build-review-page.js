#!/usr/bin/env node
/**
 * Builds the browser scripts of the service's pages: esbuild bundles each page's TypeScript and
 * Preact components (TSX), with Preact itself, into its web folder, where the gateway serves it
 * from (and the build copies it beside the compiled code):
 *   apps/gateway/src/review/page/main.tsx  -> apps/gateway/src/review/web/review.js   (the hosted review page)
 *   apps/gateway/src/console/page/main.tsx -> apps/gateway/src/console/web/console.js (the customer console)
 * The outputs are not committed: `npm run build` and `npm test` make them. Type-checking is tsc's
 * (`tsc -p <page folder>`, part of `npm run lint`).
 */
const { buildSync } = require('esbuild');
const { join } = require('node:path');

const root = join(__dirname, '..');
const PAGES = [
  ['apps/gateway/src/review/page/main.tsx', 'apps/gateway/src/review/web/review.js'],
  ['apps/gateway/src/console/page/main.tsx', 'apps/gateway/src/console/web/console.js'],
];
for (const [entry, out] of PAGES) {
  buildSync({
    entryPoints: [join(root, entry)],
    outfile: join(root, out),
    bundle: true,
    format: 'iife',
    // TSX through Preact's own JSX runtime (as each page's tsconfig.json tells tsc).
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // What the browsers people use can run; nothing is fetched from elsewhere at run time.
    target: ['es2020'],
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'warning',
  });
}
