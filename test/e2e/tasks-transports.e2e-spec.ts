/**
 * Tasks over WebSocket and stdio, both eras, with the gateway's `notes.export` (three notes, 60 ms
 * per note, so it outlasts the 100 ms handoff window): a 2025-11-25 task created, polled, its
 * status notification on the connection, and `tasks/result`; a tasks-extension task created
 * (server-directed) and polled to its inlined result. The same dispatcher serves every transport:
 * these check that nothing of Streamable HTTP is assumed.
 */
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { buildGatewayIfNeeded, spawnStdioGateway, type StdioGateway } from '../support/stdio-client.js';
import { until } from '../support/until.js';
import { openWs, wsUrl, type RawWsClient } from '../support/ws-client.js';

const ENV = { NOTES_EXPORT_STEP_MS: '60' };
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
};

/** What both transports offer: requests, and the messages seen. */
interface Connection {
  request(method: string, params?: Record<string, unknown>): Promise<any>;
  waitFor(predicate: (message: any) => boolean): Promise<any>;
}

/** Polls until the task is terminal (bounded), with `get` building the request. */
async function pollToEnd(get: () => Promise<any>): Promise<any> {
  let task: any;
  await until(async () => {
    task = await get();
    return ['completed', 'failed', 'cancelled'].includes(task.status);
  }, 'the task ended');
  return task;
}

function describeTransport(name: string, open: () => Promise<{ connection: Connection; close(): Promise<void> }>) {
  describe(name, () => {
    let connection: Connection;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ connection, close } = await open());
      for (const title of ['One', 'Two', 'Three']) {
        const created = await connection.request('tools/call', {
          name: 'notes.create',
          arguments: { title, body: `${title} body` },
        });
        expect(created.error).toBeUndefined();
      }
    }, 120_000);

    afterAll(async () => {
      await close?.();
    });

    it('2025-11-25: a task-augmented call, polled, its status notification, then tasks/result', async () => {
      const created = await connection.request('tools/call', {
        name: 'notes.export',
        arguments: { format: 'markdown' },
        task: { ttl: 60_000 },
      });
      const { taskId } = created.result.task;
      expect(created.result.task).toMatchObject({ status: 'working', ttl: 60_000 });
      const done = await pollToEnd(async () => (await connection.request('tasks/get', { taskId })).result);
      expect(done.status).toBe('completed');
      await connection.waitFor(
        (message) =>
          message.method === 'notifications/tasks/status' &&
          message.params?.taskId === taskId &&
          message.params.status === 'completed',
      );
      const result = await connection.request('tasks/result', { taskId });
      expect(result.result.content[0].text).toMatch(/^# Notes \(3\)/);
      expect(result.result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId });
    });

    it('2026-07-28: the server makes a task of the call, and tasks/get inlines its result', async () => {
      const created = await connection.request('tools/call', {
        name: 'notes.export',
        arguments: { format: 'json' },
        _meta: MODERN_META,
      });
      expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
      const done = await pollToEnd(
        async () =>
          (await connection.request('tasks/get', { taskId: created.result.taskId, _meta: MODERN_META })).result,
      );
      expect(done).toMatchObject({ resultType: 'complete', status: 'completed' });
      expect(JSON.parse(done.result.content[0].text).notes).toHaveLength(3);
    });
  });
}

describeTransport('WebSocket', async () => {
  const gateway: RunningGateway = await startGateway(ENV);
  const socket: RawWsClient = await openWs(wsUrl(gateway.origin));
  await socket.initialize('2025-11-25');
  return {
    connection: socket,
    close: async () => {
      await socket.close();
      await gateway.close();
    },
  };
});

describeTransport('stdio', async () => {
  await buildGatewayIfNeeded();
  const gateway: StdioGateway = spawnStdioGateway(ENV);
  await gateway.initialize('2025-11-25');
  return { connection: gateway, close: async () => void (await gateway.stop()) };
});
