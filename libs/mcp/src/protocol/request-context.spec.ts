import { describe, expect, it } from '@jest/globals';
import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import type { JsonRpcMessage } from '../model/json-rpc.js';
import { RequestContext } from './request-context.js';
import { LegacyEraContext } from './eras/legacy-era.context.js';
import type { McpClientRequests } from '../client-requests/mcp-client-requests.js';

function open(meta?: Record<string, unknown>) {
  const sent: JsonRpcMessage[] = [];
  const dispatch: McpDispatchContext = {
    transport: 'streamable-http',
    sessionsEnabled: false,
    sendRelated: (json) => sent.push(JSON.parse(json) as JsonRpcMessage) > 0,
  };
  const params = meta ? { _meta: meta } : {};
  const context = new RequestContext({
    rpc: { jsonrpc: '2.0', id: 7, method: 'tools/call', params },
    params,
    dispatch,
    era: new LegacyEraContext('2025-11-25', dispatch, {} as McpClientRequests),
  });
  return { context, complete: () => context.complete(), sent };
}

describe('createRequestContext', () => {
  it('sends progress with the client token, total and message', async () => {
    const { context, sent } = open({ progressToken: 'tok' });
    await context.reportProgress(1, 3, 'one');
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 1, total: 3, message: 'one' },
      },
    ]);
  });

  it('sends nothing when the client gave no progress token', async () => {
    const { context, sent } = open();
    await context.reportProgress(1);
    expect(sent).toEqual([]);
  });

  it('keeps progress strictly increasing by dropping values that do not grow', async () => {
    const { context, sent } = open({ progressToken: 5 });
    await context.reportProgress(1);
    await context.reportProgress(1);
    await context.reportProgress(0.5);
    await context.reportProgress(2);
    expect(sent.map((m: JsonRpcMessage) => (m as unknown as { params: { progress: number } }).params.progress)).toEqual(
      [1, 2],
    );
  });

  it('sends nothing related once the response is decided', async () => {
    const { context, sent, complete } = open({ progressToken: 'tok' });
    complete();
    await context.reportProgress(1);
    await context.sendNotification('notifications/message', { level: 'info', data: 'late' });
    expect(sent).toEqual([]);
  });

  it('exposes the request identity and _meta', () => {
    const { context } = open({ progressToken: 'tok', 'com.example/x': 1 });
    expect(context.requestId).toBe(7);
    expect(context.method).toBe('tools/call');
    expect(context.protocolVersion).toBe('2025-11-25');
    expect(context.meta).toEqual({ progressToken: 'tok', 'com.example/x': 1 });
    expect(context.signal.aborted).toBe(false);
  });
});
