#!/usr/bin/env node
// tsc compiles only TypeScript: this copies the files the gateway reads at run time
// (the review page's script, style and translation catalogs) beside the compiled code.
const { cpSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
for (const dir of ['apps/gateway/src/review/web', 'apps/gateway/src/web-shared/web', 'apps/gateway/src/console/web']) {
  cpSync(join(root, dir), join(root, 'dist', dir), { recursive: true });
}
