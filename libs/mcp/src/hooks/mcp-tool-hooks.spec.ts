import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Injectable, Logger } from '@nestjs/common';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { toolError } from '../results/tool-result.helpers.js';
import { McpTestClient } from '../testing/mcp-testing-module.js';
import { McpToolHook } from './mcp-tool-hook.decorator.js';
import type {
  McpToolCompletedEvent,
  McpToolFailedEvent,
  McpToolHookHandler,
  McpToolInvokingEvent,
} from './mcp-tool-hook.interface.js';
import { McpToolMetricsHook } from './mcp-tool-metrics.hook.js';

const calls: string[] = [];

@Injectable()
class HookedTools {
  @McpTool({ name: 'ok', description: 'Succeeds' })
  ok() {
    return 'fine';
  }

  @McpTool({ name: 'throws', description: 'Throws' })
  throws(): never {
    throw new Error('broken on purpose');
  }

  @McpTool({ name: 'soft_fail', description: 'Returns an isError result' })
  softFail() {
    return toolError('not today');
  }
}

@McpToolHook()
@Injectable()
class FirstHook implements McpToolHookHandler {
  events: (McpToolInvokingEvent | McpToolCompletedEvent | McpToolFailedEvent)[] = [];
  onToolInvoking(event: McpToolInvokingEvent) {
    calls.push(`first:invoking:${event.tool}`);
    this.events.push(event);
  }
  onToolCompleted(event: McpToolCompletedEvent) {
    calls.push(`first:completed:${event.tool}`);
    this.events.push(event);
  }
  onToolFailed(event: McpToolFailedEvent) {
    calls.push(`first:failed:${event.tool}`);
    this.events.push(event);
  }
}

@McpToolHook()
@Injectable()
class ThrowingHook implements McpToolHookHandler {
  onToolInvoking() {
    calls.push('throwing:invoking');
    throw new Error('hook bug');
  }
  onToolCompleted() {
    calls.push('throwing:completed');
  }
}

describe('tool lifecycle hooks', () => {
  let client: McpTestClient;
  let errorLog: jest.SpiedFunction<Logger['error']>;

  beforeEach(async () => {
    calls.length = 0;
    errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    client = await McpTestClient.create({ providers: [HookedTools, FirstHook, ThrowingHook, McpToolMetricsHook] });
  });

  afterEach(async () => {
    errorLog.mockRestore();
    await client.close();
  });

  it('runs invoking then completed, in registration order, with arguments, result and duration', async () => {
    const ctx = await client.initialize();
    const result = await client.result('tools/call', { name: 'ok', arguments: {} }, ctx);
    expect(result).toEqual({ content: [{ type: 'text', text: 'fine' }] });
    expect(calls).toEqual(['first:invoking:ok', 'throwing:invoking', 'first:completed:ok', 'throwing:completed']);
    const [invoking, completed] = client.module.get(FirstHook).events as [McpToolInvokingEvent, McpToolCompletedEvent];
    expect(invoking.arguments).toEqual({});
    expect(invoking.context.sessionId).toBe(ctx.session!.id);
    expect(completed.result).toEqual(result);
    expect(completed.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a thrown error as failed, with the error', async () => {
    const ctx = await client.initialize();
    const result = (await client.result('tools/call', { name: 'throws' }, ctx)) as { isError: boolean };
    expect(result.isError).toBe(true);
    expect(calls).toContain('first:failed:throws');
    const failed = client.module.get(FirstHook).events[1] as McpToolFailedEvent;
    expect((failed.error as Error).message).toBe('broken on purpose');
  });

  it('reports an isError result as failed, with its text', async () => {
    const ctx = await client.initialize();
    await client.result('tools/call', { name: 'soft_fail' }, ctx);
    const failed = client.module.get(FirstHook).events[1] as McpToolFailedEvent;
    expect(calls).toContain('first:failed:soft_fail');
    expect((failed.error as Error).message).toBe('not today');
  });

  it('logs a hook that throws and does not break the call', async () => {
    const ctx = await client.initialize();
    expect(await client.result('tools/call', { name: 'ok' }, ctx)).toEqual({
      content: [{ type: 'text', text: 'fine' }],
    });
    expect(errorLog).toHaveBeenCalledWith(
      expect.stringContaining("ThrowingHook.onToolInvoking failed for tool 'ok': hook bug"),
    );
  });

  it('does not run hooks when the arguments are invalid (the tool never runs)', async () => {
    const ctx = await client.initialize();
    await client.result('tools/call', { name: 'ok', arguments: { unexpected: 1 } }, ctx);
    expect(calls).toEqual([]);
  });

  it('counts calls per tool in the metrics hook', async () => {
    const ctx = await client.initialize();
    await client.result('tools/call', { name: 'ok' }, ctx);
    await client.result('tools/call', { name: 'ok' }, ctx);
    await client.result('tools/call', { name: 'throws' }, ctx);
    const snapshot = client.module.get(McpToolMetricsHook).snapshot();
    expect(Object.keys(snapshot)).toEqual(['ok', 'throws']);
    expect(snapshot.ok).toEqual(expect.objectContaining({ count: 2, successes: 2, failures: 0 }));
    expect(snapshot.throws).toEqual(expect.objectContaining({ count: 1, successes: 0, failures: 1 }));
    const { minDurationMs, avgDurationMs, maxDurationMs } = snapshot.ok;
    expect(minDurationMs).toBeLessThanOrEqual(avgDurationMs);
    expect(avgDurationMs).toBeLessThanOrEqual(maxDurationMs);
  });
});
