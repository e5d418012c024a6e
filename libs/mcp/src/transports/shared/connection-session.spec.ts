import { describe, expect, it } from '@jest/globals';
import { McpBackendUnavailableError } from '../../backend/mcp-backend.interface.js';
import type { McpNotificationBus } from '../../backend/mcp-notification.bus.js';
import { McpErrorMapper } from '../../protocol/mcp-error.mapper.js';
import type { McpDispatcher } from '../../protocol/mcp.dispatcher.js';
import type { McpInflightRequests } from '../../protocol/inflight-requests.js';
import type { McpSessionManager } from '../../session/mcp-session.manager.js';
import { FakeConnection } from '../../testing/fake-connection.js';
import { sessionRecord } from '../../testing/backend-contract.js';
import { ConnectionSession } from './connection-session.js';

describe('ConnectionSession', () => {
  it('closing never rejects, even when the backend cannot end the session (callers fire and forget it)', async () => {
    const session = sessionRecord();
    const sessions = {
      end: () => Promise.reject(new McpBackendUnavailableError('down')),
      resolve: async () => session,
    } as unknown as McpSessionManager;
    const bus = { attach: async () => true, detach: () => undefined } as unknown as McpNotificationBus;
    const dispatcher = {
      isModern: () => false,
      dispatch: async (_payload: unknown, ctx: { session?: unknown }) => {
        ctx.session = session;
        return { json: '{}', status: 200 };
      },
    } as unknown as McpDispatcher;
    const connection = new ConnectionSession(
      {
        dispatcher,
        sessions,
        bus,
        errors: new McpErrorMapper(),
        inflight: { abortScope: () => undefined } as unknown as McpInflightRequests,
      },
      'websocket',
      new FakeConnection(),
      {},
      10,
    );
    await connection.handle({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });

    await expect(connection.close()).resolves.toBeUndefined();
  });
});
