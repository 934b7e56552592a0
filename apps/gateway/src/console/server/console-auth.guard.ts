import { type CanActivate, type ExecutionContext, Injectable, Inject } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { MemberRole } from '@app/accounts';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { addLogContext } from '@app/logging';
import { ApiError } from '../../http/api-error';
import { type ConsoleCaller, ConsoleSessions } from './console-sessions';
import { isSameOrigin } from './same-origin';
import { sessionTokenOf } from './session-cookie';

export type ConsoleRequest = FastifyRequest & { consoleCaller?: ConsoleCaller };

/** The roles a console route is for; a route without it is for every member. */
export const ConsoleRoles = Reflector.createDecorator<MemberRole[]>();
/** Marks the console routes used before there is a session (sign-in, an invitation link): Origin check only. */
export const NoSession = Reflector.createDecorator<true>({ transform: () => true });

const READS = new Set(['GET', 'HEAD']);
export const CSRF_HEADER = 'x-csrf-token';

export const csrfFailed = () =>
  ApiError.forbidden('csrf_failed', 'This request did not come from the console page. Reload the console and try again.');

const sameToken = (given: unknown, expected: string): boolean => {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * Every /console/api route: the session cookie (never an Authorization header: API keys and
 * the admin token do not open the console), CSRF on every call but GET and HEAD (the
 * X-CSRF-Token header must be the session's token, and the Origin the service's), then the
 * member's role against the route's.
 */
@Injectable()
export class ConsoleAuthGuard implements CanActivate {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ConsoleRequest>();
    const changes = !READS.has(request.method);
    if (changes && !isSameOrigin(request.headers, this.config.publicBaseUrl, request.protocol)) throw csrfFailed();
    if (this.reflector.getAllAndOverride(NoSession, [context.getHandler(), context.getClass()])) return true;
    const caller = await this.sessions.resolve(sessionTokenOf(request));
    if (changes && !sameToken(request.headers[CSRF_HEADER], caller.session.csrf_token)) throw csrfFailed();
    request.consoleCaller = caller;
    addLogContext({ organization_id: caller.organization.id, member_id: caller.member.id });
    const roles = this.reflector.getAllAndOverride(ConsoleRoles, [context.getHandler(), context.getClass()]);
    if (roles && !roles.includes(caller.member.role)) {
      throw ApiError.forbidden(
        'forbidden',
        caller.member.role === 'viewer'
          ? 'Viewers can look but not change anything. Ask an owner of your organization for the admin role.'
          : 'Only owners can manage members. Ask an owner of your organization.',
      );
    }
    return true;
  }
}

/** The caller of a console route (after ConsoleAuthGuard). */
export const callerOf = (request: ConsoleRequest): ConsoleCaller => {
  if (!request.consoleCaller) throw new Error('ConsoleAuthGuard did not run');
  return request.consoleCaller;
};
