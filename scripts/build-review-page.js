#!/usr/bin/env node
/**
 * Builds the review page's script: esbuild bundles the TypeScript and Preact components (TSX) in
 * apps/gateway/src/review/page, with Preact itself, into apps/gateway/src/review/web/review.js, where the gateway
 * serves it from (and the build copies it beside the compiled code). The output is not
 * committed: `npm run build` and `npm test` make it. Type-checking is tsc's
 * (`tsc -p apps/gateway/src/review/page`, part of `npm run lint`).
 */
const { buildSync } = require('esbuild');
const { join } = require('node:path');

const root = join(__dirname, '..');
buildSync({
  entryPoints: [join(root, 'apps/gateway/src/review/page/main.tsx')],
  outfile: join(root, 'apps/gateway/src/review/web/review.js'),
  bundle: true,
  format: 'iife',
  // TSX through Preact's own JSX runtime (as the page's tsconfig.json tells tsc).
  jsx: 'automatic',
  jsxImportSource: 'preact',
  // What the browsers reviewers use can run; nothing is fetched from elsewhere at run time.
  target: ['es2020'],
  charset: 'utf8',
  legalComments: 'none',
  logLevel: 'warning',
});
