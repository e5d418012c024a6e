import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { McpToolRateLimiter } from './tool-rate-limiter.js';
import { asSuccess, httpContext, McpTestClient, request } from '../testing/mcp-testing-module.js';

@Injectable()
class CountingTools {
  runs = 0;

  @McpTool({ name: 'work', description: 'Counts its runs' })
  work() {
    this.runs += 1;
    return 'ok';
  }
}

describe('toolRateLimit', () => {
  let client: McpTestClient | undefined;

  afterEach(async () => {
    jest.useRealTimers();
    await client?.close();
  });

  it('refuses calls past the limit with -32004 and retryAfterMs, per session, until the window passes', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    client = await McpTestClient.create({
      providers: [CountingTools],
      options: { limits: { toolRateLimit: { limit: 2, windowMs: 1_000 } } },
    });
    const tools = client.module.get(CountingTools);
    const busy = await client.initialize();
    const calm = await client.initialize();

    expect(asSuccess(await client.dispatch(request('tools/call', { name: 'work' }), busy)).result).toBeDefined();
    expect(asSuccess(await client.dispatch(request('tools/call', { name: 'work' }), busy)).result).toBeDefined();
    jest.setSystemTime(1_000_400);
    const refused = await client.error('tools/call', { name: 'work' }, busy);
    expect(refused).toEqual({
      code: -32004,
      message: 'Too many requests',
      data: expect.objectContaining({ retryAfterMs: 600, limit: 2, windowMs: 1_000 }),
    });
    expect(tools.runs).toBe(2);

    // Another session has its own budget.
    expect(asSuccess(await client.dispatch(request('tools/call', { name: 'work' }), calm)).result).toBeDefined();

    jest.setSystemTime(1_001_001);
    expect(asSuccess(await client.dispatch(request('tools/call', { name: 'work' }), busy)).result).toBeDefined();
    expect(tools.runs).toBe(4);
  });

  it('counts callers without a session by remote address', async () => {
    client = await McpTestClient.create({
      providers: [CountingTools],
      options: { limits: { toolRateLimit: { limit: 1, windowMs: 60_000 } } },
    });
    const from = (address: string) =>
      httpContext({ sessionsEnabled: false, request: { socket: { remoteAddress: address } } });
    expect(
      asSuccess(await client.dispatch(request('tools/call', { name: 'work' }), from('10.0.0.1'))).result,
    ).toBeDefined();
    expect((await client.error('tools/call', { name: 'work' }, from('10.0.0.1'))).code).toBe(-32004);
    expect(
      asSuccess(await client.dispatch(request('tools/call', { name: 'work' }), from('10.0.0.2'))).result,
    ).toBeDefined();
  });

  it('is off by default', async () => {
    client = await McpTestClient.create({ providers: [CountingTools] });
    const ctx = await client.initialize();
    for (let i = 0; i < 50; i++) await client.dispatch(request('tools/call', { name: 'work' }), ctx);
    expect(client.module.get(CountingTools).runs).toBe(50);
  });

  it('forgets the budget of a session when it ends (no memory kept per ended session)', async () => {
    client = await McpTestClient.create({
      providers: [CountingTools],
      options: { limits: { toolRateLimit: { limit: 5, windowMs: 60_000 } } },
    });
    // The private table, read to prove that nothing stays behind per ended session.
    const limiter = client.module.get<McpToolRateLimiter, { windows: Map<string, unknown> }>(McpToolRateLimiter);
    const ctx = await client.initialize();
    await client.dispatch(request('tools/call', { name: 'work' }), ctx);
    expect(limiter.windows.size).toBe(1);
    await client.module.get(McpSessionManager).end(ctx.session!.id, 'deleted');
    expect(limiter.windows.size).toBe(0);
  });

  it('rejects a malformed setting at init', async () => {
    await expect(
      McpTestClient.create({
        providers: [CountingTools],
        options: { limits: { toolRateLimit: { limit: 0, windowMs: 1 } } },
      }),
    ).rejects.toThrow(/toolRateLimit/);
  });
});
