import { describe, expect, it } from '@jest/globals';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { McpClientCapabilityError } from '../../errors/client-request.errors.js';
import { McpMissingClientCapabilityException } from '../../errors/mcp-modern.exceptions.js';
import type { McpModernEnvelope } from '../../protocol/inbound/modern-envelope.js';
import { ModernEraContext } from '../../protocol/eras/modern-era.context.js';
import { LazyAbortController } from '../../protocol/inflight-requests.js';
import { RequestContext } from '../../protocol/request-context.js';
import { TaskRequestChannel } from './task-request-channel.js';
import type { TaskRun } from './task-run.js';

/** A modern request whose client declared nothing, through a task channel on a stand-in run. */
function open() {
  const sent: unknown[] = [];
  const dispatch: McpDispatchContext = {
    transport: 'streamable-http',
    sessionsEnabled: false,
    sendRelated: (json) => sent.push(JSON.parse(json)) > 0,
  };
  const params = { _meta: { progressToken: 'tok' } };
  const cancel = new LazyAbortController();
  const envelope = { protocolVersion: '2026-07-28', clientCapabilities: {} } as unknown as McpModernEnvelope;
  const request = new RequestContext({
    rpc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
    params,
    dispatch,
    controller: cancel,
    era: new ModernEraContext(envelope, undefined),
  });
  const controller = new AbortController();
  const run = { phase: 'request', controller, signal: controller.signal } as unknown as TaskRun;
  let channel!: TaskRequestChannel;
  const context = request.through((own) => (channel = new TaskRequestChannel(own, run)));
  return { context, channel, run, sent, cancel };
}

describe('TaskRequestChannel', () => {
  it('in its request, maps a missing client capability as the request does (modern: -32021)', async () => {
    const { context } = open();
    await expect(context.listRoots()).rejects.toBeInstanceOf(McpMissingClientCapabilityException);
  });

  it('in its task, throws the raw capability error: a task has no round to answer -32021 with', async () => {
    const { context, channel } = open();
    channel.enterTask();
    await expect(context.listRoots()).rejects.toBeInstanceOf(McpClientCapabilityError);
    await expect(context.listRoots()).rejects.not.toBeInstanceOf(McpMissingClientCapabilityException);
  });

  it("in its request, sends progress on the request's stream and keeps its message for the task's status", async () => {
    const { context, run, sent } = open();
    await context.reportProgress(1, 2, 'half way');
    expect(run.lastMessage).toBe('half way');
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 1, total: 2, message: 'half way' },
      },
    ]);
  });

  it("carries the request's cancellation while the call is in its request, and names no task then", () => {
    const { context, cancel } = open();
    expect(context.task).toBeUndefined();
    expect(typeof context.becomeTask).toBe('function');
    cancel.abort(new Error('cancelled'));
    expect(context.signal.aborted).toBe(true);
  });

  it("no longer carries the request's cancellation once the call is a task", () => {
    const { context, channel, cancel } = open();
    channel.enterTask();
    cancel.abort(new Error('cancelled'));
    expect(context.signal.aborted).toBe(false);
  });
});
