import 'reflect-metadata';
import { jest } from '@jest/globals';
import {
  Injectable,
  Logger,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  type ExceptionFilter,
  type ExecutionContext,
  type NestInterceptor,
  type PipeTransform,
} from '@nestjs/common';
import { APP_GUARD, ExternalContextCreator } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { delay, of, type Observable } from 'rxjs';
import { McpArgs, McpCtx, McpTool } from '../decorators/index.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { compileMcpModule, McpTestClient, statelessContext, type McpFixture } from '../testing/mcp-testing-module.js';

const calls: string[] = [];

const input = { type: 'object', properties: { text: { type: 'string' } } } as const;

class CountingGuard implements CanActivate {
  canActivate(): boolean {
    calls.push('guard');
    return true;
  }
}

class CountingInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    calls.push('interceptor');
    return next.handle();
  }
}

class UpperPipe implements PipeTransform {
  transform(value: unknown): unknown {
    return typeof value === 'string' ? value.toUpperCase() : value;
  }
}

class SwallowingFilter implements ExceptionFilter {
  catch(_exception: unknown, _host: ArgumentsHost): unknown {
    return 'filtered';
  }
}

@Injectable()
class PlainTools {
  @McpTool({ name: 'echo', description: 'd', input })
  echo(@McpArgs('text') text: string, @McpCtx() ctx: McpRequestContext) {
    return `${text} ${typeof ctx.method}`;
  }

  @McpTool({ name: 'raw', description: 'd', input })
  raw(args: { text: string }, ctx: McpRequestContext) {
    return `${args.text} ${ctx.method}`;
  }

  @McpTool({ name: 'gap', description: 'd', input })
  gap(_unused: unknown, @McpArgs('text') text: string) {
    return `${String(_unused)} ${text}`;
  }

  @McpTool({ name: 'observable', description: 'd' })
  observable() {
    return of('first', 'last');
  }

  @McpTool({ name: 'later-observable', description: 'd' })
  async laterObservable() {
    return of('a', 'resolved').pipe(delay(1));
  }

  @McpTool({ name: 'throws', description: 'd' })
  throws(): string {
    throw new Error('thrown');
  }

  @McpTool({ name: 'rejects', description: 'd' })
  async rejects(): Promise<string> {
    throw new Error('rejected');
  }
}

@Injectable()
class EnhancedTools {
  @McpTool({ name: 'method-guard', description: 'd' })
  @UseGuards(CountingGuard)
  methodGuard() {
    return 'ok';
  }

  @McpTool({ name: 'method-interceptor', description: 'd' })
  @UseInterceptors(CountingInterceptor)
  methodInterceptor() {
    return 'ok';
  }

  @McpTool({ name: 'method-pipe', description: 'd', input })
  @UsePipes(UpperPipe)
  methodPipe(@McpArgs('text') text: string) {
    return text;
  }

  @McpTool({ name: 'param-pipe', description: 'd', input })
  paramPipe(@McpArgs('text', UpperPipe) text: string) {
    return text;
  }

  @McpTool({ name: 'method-filter', description: 'd' })
  @UseFilters(SwallowingFilter)
  methodFilter(): string {
    throw new Error('caught');
  }
}

@Injectable()
@UseGuards(CountingGuard)
class ClassGuardedTools {
  @McpTool({ name: 'class-guard', description: 'd' })
  classGuard() {
    return 'ok';
  }
}

/** The method names `ExternalContextCreator.create` was asked to wrap while `run` ran. */
async function wrappedDuring<T>(run: () => Promise<T>): Promise<{ value: T; wrapped: string[] }> {
  const create = jest.spyOn(ExternalContextCreator.prototype, 'create');
  try {
    const value = await run();
    return { value, wrapped: create.mock.calls.map((call) => call[2]) };
  } finally {
    create.mockRestore();
  }
}

const call = async (client: McpTestClient, name: string, args: object = {}) =>
  client.result('tools/call', { name, arguments: args }, statelessContext('2025-11-25'));

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]?.text;

describe('the direct call of a method nothing enhances', () => {
  beforeEach(() => (calls.length = 0));

  describe('without enhancers', () => {
    let client: McpTestClient;
    let wrapped: string[];

    beforeAll(async () => {
      ({ value: client, wrapped } = await wrappedDuring(() => McpTestClient.create({ providers: [PlainTools] })));
    });
    afterAll(() => client.close());

    it('does not build Nest’s chain for any method', () => {
      expect(wrapped).toEqual([]);
    });

    it('passes the decorated parameters from the same params factory', async () => {
      expect(textOf(await call(client, 'echo', { text: 'hi' }))).toBe('hi string');
    });

    it('passes (args, ctx) as they are to a method without parameter decorators', async () => {
      expect(textOf(await call(client, 'raw', { text: 'hi' }))).toBe('hi tools/call');
    });

    it('leaves a parameter without a decorator undefined', async () => {
      expect(textOf(await call(client, 'gap', { text: 'hi' }))).toBe('undefined hi');
    });

    it('resolves an Observable, and a promise of one, to its last value', async () => {
      expect(textOf(await call(client, 'observable'))).toBe('last');
      expect(textOf(await call(client, 'later-observable'))).toBe('resolved');
    });

    it('rejects with what the method throws or rejects with, logged as Nest’s handler without filters does', async () => {
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      try {
        const tools = client.module.get(McpToolRegistry);
        const ctx = {} as McpRequestContext;

        await expect(tools.get('throws')!.handler({}, ctx)).rejects.toThrow('thrown');
        await expect(tools.get('rejects')!.handler({}, ctx)).rejects.toThrow('rejected');
        expect(logged.mock.calls.map(([error]) => (error as Error).message)).toEqual(['thrown', 'rejected']);
        expect(await call(client, 'throws')).toEqual({ content: [{ type: 'text', text: 'thrown' }], isError: true });
      } finally {
        logged.mockRestore();
      }
    });
  });

  describe('with an enhancer on the method or its class', () => {
    let client: McpTestClient;
    let wrapped: string[];

    beforeAll(async () => {
      ({ value: client, wrapped } = await wrappedDuring(() =>
        McpTestClient.create({ providers: [EnhancedTools, ClassGuardedTools, PlainTools] }),
      ));
    });
    afterAll(() => client.close());

    it('builds Nest’s chain for those methods only', () => {
      expect(wrapped.sort()).toEqual(
        ['classGuard', 'methodFilter', 'methodGuard', 'methodInterceptor', 'methodPipe', 'paramPipe'].sort(),
      );
    });

    it('runs their guards, interceptors, pipes and filters', async () => {
      await call(client, 'method-guard');
      await call(client, 'class-guard');
      await call(client, 'method-interceptor');
      expect(calls).toEqual(['guard', 'guard', 'interceptor']);
      expect(textOf(await call(client, 'method-pipe', { text: 'a' }))).toBe('A');
      expect(textOf(await call(client, 'param-pipe', { text: 'b' }))).toBe('B');
      expect(textOf(await call(client, 'method-filter'))).toBe('filtered');
    });
  });

  describe('with a global enhancer', () => {
    it.each<[string, McpFixture['providers']]>([
      ['APP_GUARD', [PlainTools, { provide: APP_GUARD, useClass: CountingGuard }]],
    ])('builds Nest’s chain for every method and runs it (%s)', async (_label, providers) => {
      const { value: client, wrapped } = await wrappedDuring(() => McpTestClient.create({ providers }));
      try {
        expect(wrapped).toContain('echo');
        await call(client, 'echo', { text: 'x' });
        expect(calls).toEqual(['guard']);
      } finally {
        await client.close();
      }
    });

    const appWith = async (setUp: (app: INestApplication) => void, init: 'before' | 'after') => {
      const module = await compileMcpModule({ providers: [PlainTools, EnhancedTools] });
      const app = module.createNestApplication({ logger: false });
      if (init === 'before') setUp(app);
      await app.init();
      if (init === 'after') setUp(app);
      return { app, client: new McpTestClient(module) };
    };

    it('runs one added with app.useGlobalGuards / useGlobalInterceptors before init', async () => {
      const { value, wrapped } = await wrappedDuring(() =>
        appWith(
          (app) => app.useGlobalGuards(new CountingGuard()).useGlobalInterceptors(new CountingInterceptor()),
          'before',
        ),
      );
      try {
        expect(wrapped).toContain('echo');
        await call(value.client, 'echo', { text: 'x' });
        expect(calls).toEqual(['guard', 'interceptor']);
      } finally {
        await value.app.close();
      }
    });

    it('like Nest’s chain, does not see one added after init (the enhancers are read when the handler is built)', async () => {
      const { app, client } = await appWith((nest) => nest.useGlobalGuards(new CountingGuard()), 'after');
      try {
        await call(client, 'echo', { text: 'x' });
        await call(client, 'method-interceptor');
        expect(calls).toEqual(['interceptor']);
      } finally {
        await app.close();
      }
    });
  });
});
