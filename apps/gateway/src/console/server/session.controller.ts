import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Inject } from '@nestjs/common';
import { jsonShape } from '../../http/json-shape-limits';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest, NoSession } from './console-auth.guard';
import { ConsoleSessions, sessionView, type SessionView } from './console-sessions';
import { type InvitationPreview, Invitations } from './invitations';
import { clearSessionCookie, sessionTokenOf, setSessionCookie } from './session-cookie';

/** Sign-in, the session, sign-out, password, and the invitation link (docs/console.md). */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api')
export class SessionController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly invitations: Invitations,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('session')
  @HttpCode(200)
  @NoSession()
  async signIn(@Req() req: ConsoleRequest, @Res({ passthrough: true }) res: FastifyReply, @Body(jsonShape) body: unknown) {
    const { token, caller } = await this.sessions.signIn(body, req.ip);
    setSessionCookie(res, this.config, token);
    return { data: sessionView(caller) };
  }

  @Get('session')
  session(@Req() req: ConsoleRequest): { data: SessionView } {
    return { data: sessionView(callerOf(req)) };
  }

  @Delete('session')
  @HttpCode(204)
  @NoSession()
  async signOut(@Req() req: ConsoleRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<void> {
    // A sign-out needs no live session (an ended one just clears its cookie), but it is a change: Origin-checked like the rest.
    await this.sessions.signOut(sessionTokenOf(req));
    clearSessionCookie(res, this.config);
  }

  @Post('session/others/sign-out')
  @HttpCode(200)
  async signOutOthers(@Req() req: ConsoleRequest) {
    return { data: { ended: await this.sessions.signOutOthers(callerOf(req)) } };
  }

  @Put('me/password')
  @HttpCode(204)
  async changePassword(@Req() req: ConsoleRequest, @Body(jsonShape) body: unknown): Promise<void> {
    await this.sessions.changePassword(callerOf(req), body, req.ip);
  }

  @Get('invitations/:id')
  @NoSession()
  async invitation(@Param('id') id: string, @Query('signature') signature: unknown): Promise<{ data: InvitationPreview }> {
    return { data: await this.invitations.preview(id, signature) };
  }

  @Post('invitations/:id/accept')
  @HttpCode(200)
  @NoSession()
  async accept(
    @Req() req: ConsoleRequest,
    @Res({ passthrough: true }) res: FastifyReply,
    @Param('id') id: string,
    @Query('signature') signature: unknown,
    @Body(jsonShape) body: unknown,
  ) {
    const { token, caller } = await this.invitations.accept(id, signature, body, String(req.id));
    setSessionCookie(res, this.config, token);
    return { data: sessionView(caller) };
  }
}
