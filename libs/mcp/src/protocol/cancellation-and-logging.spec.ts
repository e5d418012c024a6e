import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { McpCtx } from '../decorators/mcp-params.decorator.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import type { JsonRpcMessage } from '../model/json-rpc.js';
import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import { asSuccess, McpTestClient, notification, request } from '../testing/mcp-testing-module.js';

/** Tools whose handlers the tests steer from outside. */
@Injectable()
class SteeredTools {
  signals: AbortSignal[] = [];
  release?: () => void;

  @McpTool({ name: 'wait', description: 'Waits until released or aborted' })
  async wait(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    this.signals.push(ctx.signal);
    await new Promise<void>((resolve) => {
      this.release = resolve;
      ctx.signal.addEventListener('abort', () => resolve());
    });
    return 'finished';
  }

  late?: McpRequestContext;

  @McpTool({ name: 'keeps-context', description: 'Keeps its context, to send from it once answered' })
  keepsContext(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    this.late = ctx;
    return 'answered';
  }

  @McpTool({ name: 'chatty', description: 'Logs at every level' })
  async chatty(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    for (const level of ['debug', 'info', 'warning', 'error'] as const) await ctx.log(level, { level }, 'chatty');
    return 'ok';
  }
}

/** Waits until the steered tool has started (bounded). */
async function started(tools: SteeredTools, count: number): Promise<void> {
  for (let i = 0; i < 1000 && tools.signals.length < count; i++) await new Promise((r) => setImmediate(r));
  if (tools.signals.length < count) throw new Error('the tool did not start');
}

describe('cancellation and logging', () => {
  let client: McpTestClient;
  let tools: SteeredTools;

  beforeEach(async () => {
    client = await McpTestClient.create({ providers: [SteeredTools] });
    tools = client.module.get(SteeredTools);
  });

  afterEach(() => client.close());

  describe('notifications/cancelled', () => {
    it('aborts the handler signal and suppresses the response', async () => {
      const ctx = await client.initialize();
      const pending = client.dispatch(request('tools/call', { name: 'wait' }, 41), ctx);
      await started(tools, 1);
      expect(
        await client.dispatch(notification('notifications/cancelled', { requestId: 41, reason: 'user' }), ctx),
      ).toBeUndefined();
      expect(await pending).toBeUndefined();
      expect(tools.signals[0].aborted).toBe(true);
    });

    it('ignores unknown ids and lets the request answer normally', async () => {
      const ctx = await client.initialize();
      const pending = client.dispatch(request('tools/call', { name: 'wait' }, 42), ctx);
      await started(tools, 1);
      await client.dispatch(notification('notifications/cancelled', { requestId: 999 }), ctx);
      await client.dispatch(notification('notifications/cancelled', { requestId: '42' }), ctx);
      await client.dispatch(notification('notifications/cancelled', {}), ctx);
      tools.release!();
      expect(asSuccess(await pending).result).toEqual({ content: [{ type: 'text', text: 'finished' }] });
      expect(tools.signals[0].aborted).toBe(false);
    });

    it("cannot cancel another session's request with the same id", async () => {
      const owner = await client.initialize();
      const other = await client.initialize();
      const pending = client.dispatch(request('tools/call', { name: 'wait' }, 7), owner);
      await started(tools, 1);
      await client.dispatch(notification('notifications/cancelled', { requestId: 7 }), other);
      expect(tools.signals[0].aborted).toBe(false);
      tools.release!();
      expect(asSuccess(await pending).id).toBe(7);
    });

    it('aborts in-flight requests when their session ends', async () => {
      const ctx = await client.initialize();
      const pending = client.dispatch(request('tools/call', { name: 'wait' }, 8), ctx);
      await started(tools, 1);
      await client.module
        .get((await import('../session/mcp-session.manager.js')).McpSessionManager)
        .end(ctx.session!.id, 'deleted');
      await pending;
      expect(tools.signals[0].aborted).toBe(true);
    });
  });

  describe('logging', () => {
    const withSink = (ctx: McpDispatchContext, sink: JsonRpcMessage[]): McpDispatchContext => ({
      ...ctx,
      sendRelated: (json) => sink.push(JSON.parse(json) as JsonRpcMessage) > 0,
    });

    it('declares the logging capability', async () => {
      const result = await client.result('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      });
      expect(result.capabilities).toHaveProperty('logging', {});
    });

    it('sends every level until the client sets one, then only that level and above', async () => {
      const ctx = await client.initialize();
      const before: JsonRpcMessage[] = [];
      await client.dispatch(request('tools/call', { name: 'chatty' }), withSink(ctx, before));
      expect(before.map((m) => (m as unknown as { params: { level: string } }).params.level)).toEqual([
        'debug',
        'info',
        'warning',
        'error',
      ]);
      expect(before[0]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'debug', logger: 'chatty', data: { level: 'debug' } },
      });

      expect(asSuccess(await client.dispatch(request('logging/setLevel', { level: 'warning' }), ctx)).result).toEqual(
        {},
      );
      const after: JsonRpcMessage[] = [];
      await client.dispatch(request('tools/call', { name: 'chatty' }), withSink(ctx, after));
      expect(after.map((m) => (m as unknown as { params: { level: string } }).params.level)).toEqual([
        'warning',
        'error',
      ]);
    });

    it('drops what a handler sends once its request has its answer', async () => {
      const ctx = await client.initialize();
      const sink: JsonRpcMessage[] = [];
      const answer = await client.dispatch(request('tools/call', { name: 'keeps-context' }), withSink(ctx, sink));
      expect(asSuccess(answer).result).toMatchObject({ content: [{ type: 'text', text: 'answered' }] });
      await tools.late!.log('info', 'too late');
      expect(sink).toEqual([]);
    });

    it('keeps levels per session', async () => {
      const quiet = await client.initialize();
      const loud = await client.initialize();
      await client.dispatch(request('logging/setLevel', { level: 'error' }), quiet);
      const quietSink: JsonRpcMessage[] = [];
      const loudSink: JsonRpcMessage[] = [];
      await client.dispatch(request('tools/call', { name: 'chatty' }), withSink(quiet, quietSink));
      await client.dispatch(request('tools/call', { name: 'chatty' }), withSink(loud, loudSink));
      expect(quietSink).toHaveLength(1);
      expect(loudSink).toHaveLength(4);
    });

    it.each([['loud'], [3], [undefined]])('refuses the level %p with -32602', async (level) => {
      const ctx = await client.initialize();
      const error = await client.error('logging/setLevel', level === undefined ? {} : { level }, ctx);
      expect(error.code).toBe(-32602);
      expect((error.data as { detail: string }).detail).toContain('level');
    });
  });
});
