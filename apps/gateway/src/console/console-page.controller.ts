import { Controller, Get, Headers, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { sendWebAsset } from '../web-shared/web-assets';
import { CONSOLE_LOCALE, ConsoleWeb } from './console-web';
import { TAB_ICON, escapeHtml, jsonForScript } from '../web-shared/html';

/** No script but ours, no calls but to us, no frames, no forms posted elsewhere. */
export const CONSOLE_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

/** /console/api and /console/assets (with or without a path, a slash or a query after them) are never pages. */
const NOT_A_PAGE = /^\/console\/(api|assets)(?:[/?]|$)/;

/**
 * The console's pages: one HTML shell for every /console path (the script draws the page the
 * path names; invitation links included), and its script and styles under /console/assets.
 * /console/api/... is the JSON API (./server): an unknown API path stays a JSON 404.
 */
@ApiExcludeController()
@Controller('console')
export class ConsolePageController {
  constructor(private readonly web: ConsoleWeb) {}

  @Get()
  root(@Res() reply: FastifyReply) {
    return this.shell(reply);
  }

  @Get('assets/:name')
  asset(@Param('name') name: string, @Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply) {
    const asset = this.web.asset(name);
    if (!asset) throw ApiError.notFound();
    return sendWebAsset(reply, asset, ifNoneMatch);
  }

  @Get('*')
  page(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (NOT_A_PAGE.test(request.url)) throw ApiError.notFound();
    return this.shell(reply);
  }

  private shell(reply: FastifyReply) {
    const css = ['tokens.css', 'console.css'].map((n) => this.web.asset(n)?.path).filter(Boolean);
    const js = this.web.asset('console.js')?.path;
    const title = escapeHtml(this.web.text('app.name'));
    const html = `<!doctype html>
<html lang="${CONSOLE_LOCALE}" dir="ltr">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><meta name="color-scheme" content="light dark">
<title>${title}</title><link rel="icon" href="${TAB_ICON}">${css.map((href) => `<link rel="stylesheet" href="${href}">`).join('')}</head>
<body><div id="app"><main id="main"><p>${escapeHtml(this.web.text('app.loading'))}</p><noscript><p>This console needs JavaScript.</p></noscript></main></div>
<script type="application/json" id="console-boot">${jsonForScript({ locale: CONSOLE_LOCALE, messages: this.web.messages })}</script>
<script src="${js}" defer></script></body></html>`;
    void reply.headers(CONSOLE_PAGE_HEADERS);
    return reply.send(html);
  }
}
