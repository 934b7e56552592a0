import 'reflect-metadata';
import {
  type CallHandler,
  Controller,
  Get,
  HttpCode,
  Logger,
  type NestInterceptor,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { ApiError } from './api-error';
import { AdminGuard, ApiKeyGuard, type AuthenticatedRequest } from './auth.guard';
import { answerDirectly, directly } from './direct-routes';

class PassThrough implements NestInterceptor {
  intercept(_context: unknown, next: CallHandler) {
    return next.handle();
  }
}

/** What the tests' routes answer, and the order the guard's admission and the methods ran in. */
const calls: string[] = [];
let thrown: Error | null = null;

@UseGuards(ApiKeyGuard)
@Controller('v1/runs')
class RunsController {
  @Get(':run')
  async show(@Req() request: AuthenticatedRequest, @Param('run') id: string, @Query('verbose') verbose: string | undefined) {
    calls.push(`show ${id}`);
    if (thrown) throw thrown;
    return { id, verbose: verbose ?? null, organization: request.caller?.organizationId };
  }

  @Get()
  async index(@Query() query: Record<string, unknown>) {
    calls.push('index');
    return { query };
  }

  @Get('other/list')
  async other() {
    return 'nest';
  }
}

/** A guard that admits as the API-key guard does, recording when it ran; `refusal` makes it throw instead. */
function fakeGuard(refusal: ApiError | null = null): ApiKeyGuard {
  const guard = Object.create(ApiKeyGuard.prototype) as ApiKeyGuard;
  guard.admit = async (request, reply) => {
    calls.push('admit');
    void reply.header('x-ratelimit-remaining', '9');
    if (refusal) throw refusal;
    request.caller = { organizationId: 'org-1', apiKeyId: 'key-1' };
    return request.caller;
  };
  return guard;
}

describe('answerDirectly', () => {
  let app: FastifyInstance;
  afterEach(async () => {
    await app?.close();
    calls.length = 0;
    thrown = null;
  });

  /** A Fastify instance whose routes are added as Nest adds them (after answerDirectly), each answering "nest". */
  async function start(methods: string[], options: { guard?: ApiKeyGuard; enhancers?: ApplicationConfig; declared?: string[] } = {}) {
    app = Fastify();
    answerDirectly(app, options.guard ?? fakeGuard(), options.enhancers ?? new ApplicationConfig(), [
      directly(new RunsController(), methods as (keyof RunsController)[]),
    ]);
    for (const url of options.declared ?? ['/v1/runs/:run', '/v1/runs', '/v1/runs/other/list']) app.get(url, async () => 'nest');
    await app.ready();
  }

  it("calls the controller's method with its request, parameters and query, after the guard's admission; other routes stay Nest's", async () => {
    await start(['show', 'index']);
    const shown = await app.inject({ method: 'GET', url: '/v1/runs/42?verbose=yes' });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({ id: '42', verbose: 'yes', organization: 'org-1' });
    expect(shown.headers['x-ratelimit-remaining']).toBe('9');
    expect((await app.inject({ method: 'GET', url: '/v1/runs?page=2' })).json()).toEqual({ query: { page: '2' } });
    expect((await app.inject({ method: 'GET', url: '/v1/runs/other/list' })).body).toBe('nest');
    expect(calls).toEqual(['admit', 'show 42', 'admit', 'index']);
  });

  it("answers the guard's refusal in the envelope with its headers, without calling the method", async () => {
    await start(['show'], { guard: fakeGuard(ApiError.tooManyRequests({ 'Retry-After': '30' })) });
    const refused = await app.inject({ method: 'GET', url: '/v1/runs/42' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.json().error).toMatchObject({ code: 'too_many_requests', request_id: expect.stringMatching(/.+/) });
    expect(calls).toEqual(['admit']);
  });

  it("answers the method's errors in the envelope, and a surprise as a 500 that tells nothing but is logged", async () => {
    await start(['show']);
    thrown = ApiError.notFound('transformation run');
    const notFound = await app.inject({ method: 'GET', url: '/v1/runs/1' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json().error).toMatchObject({ code: 'not_found', type: 'not_found' });
    thrown = new Error('database file /secret/path is locked');
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const surprise = await app.inject({ method: 'GET', url: '/v1/runs/1' });
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('database file /secret/path is locked'));
    logged.mockRestore();
    expect(surprise.statusCode).toBe(500);
    expect(surprise.body).not.toContain('/secret/path');
    expect(surprise.json().error.code).toBe('internal_error');
  });

  it('sends a request with an empty path parameter to not-found, as Nest does, before any admission', async () => {
    await start(['show'], { declared: ['/v1/runs/:run'] });
    expect((await app.inject({ method: 'GET', url: '/v1/runs/' })).statusCode).toBe(404);
    expect(calls).toEqual([]);
  });

  it('refuses to start when a method it names was never registered (a renamed route)', async () => {
    await expect(start(['show'], { declared: ['/v1/runs/:id'] })).rejects.toThrow(
      'Controller methods to answer directly whose routes Nest did not register: RunsController.show (GET /v1/runs/:run)',
    );
  });

  it('refuses to start when the routes would skip a global guard, pipe or interceptor', async () => {
    const enhancers = new ApplicationConfig();
    enhancers.addGlobalInterceptor(new PassThrough());
    await expect(start(['show'], { enhancers })).rejects.toThrow('would skip the global guards, pipes or interceptors');
  });

  it.each([
    [
      'a pipe on a parameter',
      'argument 1 has a pipe',
      () => {
        @UseGuards(ApiKeyGuard)
        @Controller('x')
        class C {
          @Get(':id')
          get(@Req() _r: unknown, @Param('id', ParseUUIDPipe) _id: string) {}
        }
        return C;
      },
    ],
    [
      'another guard',
      'its guards are not exactly the API-key guard',
      () => {
        @UseGuards(ApiKeyGuard)
        @Controller('x')
        class C {
          @UseGuards(AdminGuard)
          @Get()
          get() {}
        }
        return C;
      },
    ],
    [
      'no guard',
      'its guards are not exactly the API-key guard',
      () => {
        @Controller('x')
        class C {
          @Get()
          get() {}
        }
        return C;
      },
    ],
    [
      'an interceptor',
      'it has __interceptors__',
      () => {
        @UseInterceptors(PassThrough)
        @UseGuards(ApiKeyGuard)
        @Controller('x')
        class C {
          @Get()
          get() {}
        }
        return C;
      },
    ],
    [
      'a status code',
      'it has __httpCode__',
      () => {
        @UseGuards(ApiKeyGuard)
        @Controller('x')
        class C {
          @HttpCode(202)
          @Get()
          get() {}
        }
        return C;
      },
    ],
    [
      'a POST',
      'not a GET route',
      () => {
        @UseGuards(ApiKeyGuard)
        @Controller('x')
        class C {
          @Post()
          get() {}
        }
        return C;
      },
    ],
    [
      'the response object',
      'argument 0 is neither @Req, @Query nor @Param',
      () => {
        @UseGuards(ApiKeyGuard)
        @Controller('x')
        class C {
          @Get()
          get(@Res() _res: unknown) {}
        }
        return C;
      },
    ],
    [
      'an undecorated parameter',
      'argument 1 has no decorator',
      () => {
        @UseGuards(ApiKeyGuard)
        @Controller('x')
        class C {
          @Get()
          get(@Req() _r: unknown, _other: unknown) {}
        }
        return C;
      },
    ],
  ])('refuses a method with %s', (_what, message, make) => {
    const Made = make();
    expect(() => answerDirectly(Fastify(), fakeGuard(), new ApplicationConfig(), [directly(new Made(), ['get'])])).toThrow(
      `C.get cannot be answered directly: ${message}`,
    );
  });
});
