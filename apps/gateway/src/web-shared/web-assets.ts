import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';

export interface WebAsset {
  body: string;
  contentType: string;
  etag: string;
  path: string;
}

const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** What every page loads first: the design tokens (web/tokens.css, copied beside the compiled code by the build). */
export const SHARED_WEB_DIR = join(__dirname, 'web');

/**
 * The scripts and style sheets of a page's folders, each served under `routePrefix` with its
 * content hash in the URL (so browsers can keep it for ever) and as its ETag.
 */
export function loadWebAssets(dirs: string[], routePrefix: string): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  for (const dir of dirs) {
    for (const file of readdirSync(dir)) {
      const ext = file.slice(file.lastIndexOf('.'));
      if (!ASSET_TYPES[ext]) continue;
      const body = readFileSync(join(dir, file), 'utf8');
      const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
      assets.set(file, { body, contentType: ASSET_TYPES[ext], etag: `"${hash}"`, path: `${routePrefix}/${file}?v=${hash}` });
    }
  }
  return assets;
}

/** Answers with an asset, cacheable for ever under its content hash; 304 when the browser already has it. */
export function sendWebAsset(reply: FastifyReply, asset: WebAsset, ifNoneMatch: string | undefined): FastifyReply {
  void reply.headers({
    'content-type': asset.contentType,
    etag: asset.etag,
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
  });
  if (ifNoneMatch === asset.etag) return reply.status(304).send();
  return reply.send(asset.body);
}
