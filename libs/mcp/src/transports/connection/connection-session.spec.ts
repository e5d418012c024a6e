import { describe, expect, it } from '@jest/globals';
import { McpBackendUnavailableError } from '../../backend/mcp-backend.interface.js';
import type { McpLiveStreams } from '../../backend/mcp-live-streams.js';
import { McpErrorMapper } from '../../protocol/mcp-error.mapper.js';
import type { McpDispatcher } from '../../protocol/dispatch/mcp.dispatcher.js';
import type { McpInflightRequests } from '../../protocol/inflight-requests.js';
import type { McpSessionManager } from '../../session/mcp-session.manager.js';
import { FakeConnection } from '../../testing/fake-connection.js';
import { sessionRecord } from '../../testing/backend-contract.js';
import { ConnectionSession } from './connection-session.js';
import { McpInboundClassifier } from '../../protocol/inbound/inbound-classifier.js';
import { McpInboundPort } from '../../protocol/dispatch/inbound-port.js';
import type { McpToolRegistry } from '../../registry/mcp-tool.registry.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';

const classifier = new McpInboundClassifier({ get: () => undefined } as unknown as McpToolRegistry);
/** The inbound port over a stand-in dispatcher, with the real classifier and error mapper. */
const portOver = (dispatcher: McpDispatcher) =>
  new McpInboundPort(classifier, dispatcher, new McpErrorMapper(), new McpTelemetry());

describe('ConnectionSession', () => {
  it('closing never rejects, even when the backend cannot end the session (callers fire and forget it)', async () => {
    const session = sessionRecord();
    const sessions = {
      end: () => Promise.reject(new McpBackendUnavailableError('down')),
      resolve: async () => session,
    } as unknown as McpSessionManager;
    const liveStreams = { attach: async () => true, detach: () => undefined } as unknown as McpLiveStreams;
    const dispatcher = {
      dispatch: async (_payload: unknown, ctx: { session?: unknown }) => {
        ctx.session = session;
        return { json: '{}', status: 200 };
      },
    } as unknown as McpDispatcher;
    const connection = new ConnectionSession(
      {
        inbound: portOver(dispatcher),
        sessions,
        liveStreams,
        inflight: { abortScope: () => undefined } as unknown as McpInflightRequests,
        maxInFlight: 10,
      },
      'websocket',
      new FakeConnection(),
      {},
      'dual',
    );
    await connection.handle({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });

    await expect(connection.close()).resolves.toBeUndefined();
  });

  it('counts each request of a batch against maxInFlightRequests: a batch that does not fit is refused whole', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const dispatched: unknown[] = [];
    const dispatcher = {
      dispatch: async (payload: unknown) => {
        dispatched.push(payload);
        await held;
        return { json: JSON.stringify({ jsonrpc: '2.0', id: 'done', result: {} }), status: 200 };
      },
    } as unknown as McpDispatcher;
    const connection = new FakeConnection();
    const session = new ConnectionSession(
      {
        inbound: portOver(dispatcher),
        sessions: {} as McpSessionManager,
        liveStreams: {} as McpLiveStreams,
        inflight: { abortScope: () => undefined } as unknown as McpInflightRequests,
        maxInFlight: 3,
      },
      'websocket',
      connection,
      {},
      'dual',
    );
    const rpc = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } });

    const running = session.handle(rpc(1));
    // 1 running + 3 = 4 > 3: refused at once, whole, with one error and nothing dispatched.
    await session.handle([rpc(2), rpc(3), { jsonrpc: '2.0', method: 'notifications/initialized' }, rpc(4)]);
    expect(connection.sent.map(({ message }) => message)).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: expect.objectContaining({ code: -32004, data: expect.objectContaining({ limit: 3 }) }),
      },
    ]);
    // 1 running + 2 = 3: admitted; then a single request no longer fits.
    const batch = session.handle([rpc(5), rpc(6)]);
    await session.handle(rpc(7));
    expect(connection.sent[1].message).toMatchObject({ id: 7, error: { code: -32004 } });
    expect(dispatched).toHaveLength(2);

    release();
    await Promise.all([running, batch]);
    await session.handle(rpc(8));
    expect(dispatched).toHaveLength(3);
  });
});
