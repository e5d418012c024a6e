/**
 * The experimental tasks of MCP 2025-11-25, driven by the official SDK v1 client's experimental
 * tasks API (`client.experimental.tasks`) on Streamable HTTP sessions: capabilities and
 * `execution.taskSupport`, task-augmented `tools/call`, `tasks/get`, `tasks/result` (which waits,
 * and carries the task's elicitation), `tasks/list`, `tasks/cancel`, status notifications and
 * progress on the session's stream, and the session binding. The SDK validates every result
 * with its own zod schemas of that version; the tests check the rest.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  RELATED_TASK_META_KEY,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { McpServerStats } from '@app/mcp';
import { RedisMcpBackend } from '@nest-mcp/redis';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { McpSessionManager } from '@app/mcp/session/mcp-session.manager.js';
import { McpTaskChannels } from '@app/mcp/extensions/tasks/task-channels.js';
import { McpTasks } from '@app/mcp/extensions/tasks/mcp-tasks.service.js';
import { InMemoryTaskStore } from '@app/mcp/extensions/tasks/store/in-memory-task.store.js';
import { RESULT_NOT_KEPT } from '@nest-mcp/server/backend';
import { Gates } from '../fixtures/gates.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { TaskTools } from '../fixtures/task.tools.js';
import { legacySession } from '../support/legacy-task-wire.js';
import { rawPost } from '../support/raw-http.js';
import { until } from '../support/until.js';

/** Resolves when `app` next opens a task's channel: a `tasks/result` request is in flight there. */
function channelOpened(app: FixtureApp): Promise<void> {
  const channels = app.app.get(McpTaskChannels);
  const open = channels.open.bind(channels);
  return new Promise<void>((resolve) => {
    jest.spyOn(channels, 'open').mockImplementation((...args) => {
      resolve();
      return open(...args);
    });
  });
}

describe('Tasks of MCP 2025-11-25 with the SDK v1 client', () => {
  let app: FixtureApp;
  let gates: Gates;
  let tools: TaskTools;
  const clients: Client[] = [];
  let key = 0;
  const fresh = () => `legacy-${++key}`;

  beforeAll(async () => {
    app = await startFixtureApp({ providers: [Gates, TaskTools], mcp: { tasks: { pollIntervalMs: 50 } } });
    gates = app.app.get(Gates);
    tools = app.app.get(TaskTools);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await app?.close();
  });

  async function connect(name = 'legacy-tasks'): Promise<Client> {
    const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await client.connect(new StreamableHTTPClientTransport(new URL(app.endpoint)));
    clients.push(client);
    await client.listTools();
    return client;
  }

  /** Starts a task-augmented call and returns its task (the first message of the stream). */
  async function startTask(client: Client, name: string, args: Record<string, unknown>) {
    const result = await client.request(
      { method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } },
      (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema,
    );
    return result.task;
  }

  it('declares tasks (list, cancel, tools/call) and each tool its execution.taskSupport', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools: listed } = await client.listTools();
    const support = Object.fromEntries(listed.map((tool) => [tool.name, tool.execution?.taskSupport]));
    expect(support).toMatchObject({
      gated: 'optional',
      must_task: 'required',
      never_task: 'forbidden',
      plain: undefined,
    });
  });

  it('callToolStream: created, polled (status notifications and progress on the session stream), then the result', async () => {
    const client = await connect();
    const statuses: string[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      statuses.push(notification.params.status);
    });
    const progress: string[] = [];
    const k = fresh();
    const stream = client.experimental.tasks.callToolStream(
      { name: 'gated', arguments: { key: k } },
      CallToolResultSchema,
      {
        task: { ttl: 30_000 },
        onprogress: (update) => progress.push(update.message ?? ''),
      },
    );
    const seen: string[] = [];
    let result: any;
    for await (const message of stream) {
      seen.push(message.type);
      if (message.type === 'taskCreated') {
        expect(message.task).toMatchObject({ status: 'working', ttl: 30_000, pollInterval: 50 });
        await gates.gate(k).whenArrived(1);
        gates.gate(k).open();
      }
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(seen[0]).toBe('taskCreated');
    expect(seen.at(-1)).toBe('result');
    expect(result.structuredContent ?? JSON.parse(result.content[0].text)).toEqual({ passed: k });
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: expect.any(String) });
    await until(() => statuses.includes('completed'), 'notifications/tasks/status completed on the session stream');
    await until(() => progress.includes(`passed ${k}`), 'the progress of the task, with the call progress token');
  });

  it('getTask, listTasks and getTaskResult; tasks/result waits for the end', async () => {
    const client = await connect();
    const k = fresh();
    const task = await startTask(client, 'gated', { key: k });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((entry) => entry.taskId)).toEqual([task.taskId]);
    const waiting = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await gates.gate(k).whenArrived(1);
    gates.gate(k).open();
    const result = await waiting;
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
  });

  it('cancelTask answers the cancelled task and stops the handler; a second cancel is -32602', async () => {
    const client = await connect();
    const k = fresh();
    const task = await startTask(client, 'gated', { key: k });
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    await until(() => tools.stopped.has(k), 'the handler saw its signal abort');
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
  });

  it('an isError result fails the task (2025-11-25) and tasks/result answers that result', async () => {
    const client = await connect();
    const k = fresh();
    const task = await startTask(client, 'tool_error', { key: k });
    gates.gate(k).open();
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ text: `no luck with ${k}` }] });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: `no luck with ${k}`,
    });
  });

  it('a JSON-RPC error of the call is what tasks/result answers', async () => {
    const client = await connect();
    const k = fresh();
    const task = await startTask(client, 'protocol_error', { key: k });
    gates.gate(k).open();
    await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({
      code: -32011,
    });
  });

  it('elicitation inside a task: input_required, the request delivered on tasks/result, the answer resumes it', async () => {
    const client = await connect();
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params._meta?.[RELATED_TASK_META_KEY]);
      return { action: 'accept', content: { name: 'Grace' } };
    });
    const k = fresh();
    gates.gate(k).open();
    const stream = client.experimental.tasks.callToolStream(
      { name: 'ask_name', arguments: { key: k } },
      CallToolResultSchema,
      {
        task: { ttl: 30_000 },
      },
    );
    let result: any;
    let taskId = '';
    for await (const message of stream) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(result.content[0].text).toBe('Hello, Grace!');
    expect(asked).toEqual([{ taskId }]);
  });

  it('a client without a GET stream gets the elicitation of its task on tasks/result, which then answers the result', async () => {
    const session = await legacySession(app.endpoint);
    const k = fresh();
    gates.gate(k).open();
    const created = await session.rpc('tools/call', { name: 'ask_name', arguments: { key: k }, task: {} });
    const { taskId } = created.result.task;
    await until(
      async () => (await session.rpc('tasks/get', { taskId })).result.status === 'input_required',
      'the task waits for input',
    );
    const stream = await session.openResult(taskId);
    try {
      // Nothing could carry the request when it was asked: it waited for this stream.
      const asked = await stream.next();
      expect(asked).toMatchObject({
        method: 'elicitation/create',
        params: { message: 'Your name?', _meta: { [RELATED_TASK_META_KEY]: { taskId } } },
      });
      expect(
        await session.post({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Queued' } } }),
      ).toBe(202);
      let answer = await stream.next();
      while (answer.method !== undefined) answer = await stream.next();
      expect(answer.result).toMatchObject({
        content: [{ text: 'Hello, Queued!' }],
        _meta: { [RELATED_TASK_META_KEY]: { taskId } },
      });
    } finally {
      stream.close();
    }
  });

  it('tools that forbid tasks refuse params.task, and required ones refuse a call without it (-32601)', async () => {
    const client = await connect();
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'never_task', arguments: { key: 'x' }, task: {} } },
        CallToolResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32601 });
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'must_task', arguments: { key: 'x' } } },
        CallToolResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32601 });
  });

  it('a task belongs to its session: another session gets -32602 for it and does not list it', async () => {
    const owner = await connect('owner');
    const other = await connect('other');
    const k = fresh();
    const task = await startTask(owner, 'gated', { key: k });
    for (const call of [
      () => other.experimental.tasks.getTask(task.taskId),
      () => other.experimental.tasks.cancelTask(task.taskId),
      () => other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
    }
    expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
    gates.gate(k).open();
  });
});

describe('Tasks of MCP 2025-11-25 on a stateless server without authorization', () => {
  let app: FixtureApp;
  let gates: Gates;
  let id = 0;

  beforeAll(async () => {
    app = await startFixtureApp({ providers: [Gates, TaskTools], mcp: { sessions: false } });
    gates = app.app.get(Gates);
  });

  afterAll(async () => {
    await app?.close();
  });

  /** One stateless 2025-11-25 request: every client is as anonymous as every other. */
  const rpc = async (method: string, params: Record<string, unknown>) =>
    (
      await rawPost(
        app.endpoint,
        { jsonrpc: '2.0', id: ++id, method, params },
        { accept: 'application/json', 'mcp-protocol-version': '2025-11-25' },
      )
    ).json;

  it("lists no task to anyone (nothing tells callers apart), and a task's id alone reaches it", async () => {
    const created = await rpc('tools/call', { name: 'gated', arguments: { key: 'stateless' }, task: { ttl: 60_000 } });
    const taskId = created.result.task.taskId;
    expect(taskId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    // Another anonymous client, or the same one: there is nobody to list the tasks of.
    expect((await rpc('tasks/list', {})).result).toEqual({ tasks: [] });
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'working' });
    gates.gate('stateless').open();
    await until(async () => (await rpc('tasks/get', { taskId })).result.status === 'completed', 'the task completed');
  });
});

describe.each(['in memory', 'on Redis'])('Tasks of MCP 2025-11-25: a session waiting in tasks/result (%s)', (where) => {
  let app: FixtureApp;
  let gates: Gates;
  let redis: TestRedis | undefined;

  beforeAll(async () => {
    if (where === 'on Redis') redis = await startRedis();
    app = await startFixtureApp({
      providers: [Gates, TaskTools],
      mcp: {
        sessions: { idleTimeoutMs: 300, cleanupIntervalMs: 50 },
        tasks: { pollIntervalMs: 50 },
        ...(redis ? { backend: new RedisMcpBackend({ url: redis.url, keyPrefix: redis.prefix() }) } : {}),
      },
    });
    gates = app.app.get(Gates);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('is not idle while the request is open: it outlives an idle session, and gets the result', async () => {
    const waiting = await legacySession(app.endpoint);
    const created = await waiting.rpc('tools/call', { name: 'gated', arguments: { key: 'long-wait' }, task: {} });
    const { taskId } = created.result.task;
    // The answer stream's headers come with its first message: wait for the request to be in
    // flight on the server instead (it opens the task's channel).
    const opened = channelOpened(app);
    const streaming = waiting.openResult(taskId);
    await opened;
    try {
      // A session that does nothing meanwhile, opened after the waiting one's last request.
      await legacySession(app.endpoint);
      const stats = app.app.get(McpServerStats);
      await until(async () => (await stats.openSessions()) < 2, 'the idle session expired', 10_000);
      expect(await stats.openSessions()).toBe(1);
      gates.gate('long-wait').open();
      const stream = await streaming;
      let answer = await stream.next();
      while (answer.method !== undefined) answer = await stream.next();
      expect(answer.result).toMatchObject({ content: [{ text: JSON.stringify({ passed: 'long-wait' }) }] });
      stream.close();
      expect((await waiting.rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'completed' });
    } finally {
      gates.gate('long-wait').open();
      await streaming.then((stream) => stream.close()).catch(() => undefined);
      jest.restoreAllMocks();
    }
  });
});

describe('Tasks of MCP 2025-11-25: what one caller may store', () => {
  let app: FixtureApp;
  let gates: Gates;

  beforeAll(async () => {
    app = await startFixtureApp({
      providers: [Gates, TaskTools],
      mcp: { tasks: { maxPerCaller: 3, maxStored: 10, maxBytesPerCaller: 4_000, maxResultBytes: 8_000 } },
    });
    gates = app.app.get(Gates);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('ended tasks count: each new one removes the oldest ended, and the store never holds more than the budget', async () => {
    const session = await legacySession(app.endpoint);
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) {
      const created = await session.rpc('tools/call', { name: 'instant', arguments: { key: `k${n}` }, task: {} });
      ids.push(created.result.task.taskId);
      await until(
        async () => (await session.rpc('tasks/get', { taskId: ids.at(-1) })).result?.status === 'completed',
        'the task completed',
      );
    }
    const listed = (await session.rpc('tasks/list', {})).result.tasks.map((task: { taskId: string }) => task.taskId);
    expect(listed).toEqual(ids.slice(-3));
    expect((await session.rpc('tasks/get', { taskId: ids[0] })).error).toMatchObject({ code: -32602 });
    expect((app.app.get(McpTasks).store as InMemoryTaskStore).size).toBe(3);
  });

  it('refuses a new task (429) when every stored task of the caller still runs', async () => {
    const session = await legacySession(app.endpoint);
    const keys = ['full-1', 'full-2', 'full-3'];
    for (const key of keys) {
      const created = await session.rpc('tools/call', { name: 'gated', arguments: { key }, task: {} });
      expect(created.result.task.status).toBe('working');
    }
    const refused = await session.rpc('tools/call', { name: 'gated', arguments: { key: 'full-4' }, task: {} });
    expect(refused.error).toMatchObject({ code: -32004, data: { limit: 3 } });
    for (const key of keys) gates.gate(key).open();
  });

  it("a result larger than the caller's byte budget is not kept: the task fails saying so", async () => {
    const session = await legacySession(app.endpoint);
    gates.gate('x'.repeat(5)).open();
    const created = await session.rpc('tools/call', {
      name: 'big_result',
      arguments: { key: 'x'.repeat(5) },
      task: {},
    });
    const { taskId } = created.result.task;
    let task: any;
    await until(async () => {
      task = (await session.rpc('tasks/get', { taskId })).result;
      return task.status !== 'working';
    }, 'the task ended');
    expect(task).toMatchObject({ status: 'failed', statusMessage: RESULT_NOT_KEPT });
  });
});

describe('Tasks of MCP 2025-11-25: the session of a waiting tasks/result ends', () => {
  let app: FixtureApp;

  beforeAll(async () => {
    app = await startFixtureApp({ providers: [Gates, TaskTools] });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('the wait ends without an internal error (nothing can carry an answer) and nothing is logged as an error', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      const session = await legacySession(app.endpoint);
      const created = await session.rpc('tools/call', { name: 'gated', arguments: { key: 'ended' }, task: {} });
      const { taskId } = created.result.task;
      const opened = channelOpened(app);
      const streaming = session.openResult(taskId);
      await opened;
      await app.app.get(McpSessionManager).end(session.sessionId, 'deleted');
      const messages: any[] = [];
      await streaming
        .then(async (stream) => {
          for (;;) messages.push(await stream.next());
        })
        .catch(() => undefined);
      expect(messages.filter((message) => message.error)).toEqual([]);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      jest.restoreAllMocks();
    }
  });
});
