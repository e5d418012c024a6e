/**
 * Tasks on two instances of the library sharing one Redis (in this process, each its own Nest
 * application and Redis connections), in resource-server mode: any instance answers for any
 * task, a cancel or an answer on one reaches the handler running on the other, a task belongs to
 * its principal, the budget per principal spans the instances, the time to live ends a task
 * everywhere, and a graceful shutdown fails what it could not finish. The 2025-11-25 client goes
 * through the round-robin proxy, so its `tasks/result` lands on the instance that does not run
 * the task.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { RedisMcpBackend } from '@nest-mcp/redis';
import { Gates } from '../fixtures/gates.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { TaskTools } from '../fixtures/task.tools.js';
import { modernRequest, pollUntil } from '../support/modern-tasks-client.js';
import { STUB_ISSUER, StubTokenVerifier } from '../support/oauth/stub-verifier.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy.js';
import { legacySession } from '../support/legacy-task-wire.js';
import { until } from '../support/until.js';

const RESOURCE = 'http://127.0.0.1/mcp';

describe('Tasks on two instances sharing Redis', () => {
  let redis: TestRedis;
  let a: FixtureApp;
  let b: FixtureApp;
  let proxy: RoundRobinProxy;
  const verifier = new StubTokenVerifier();
  const alice = verifier.mint({ subject: 'alice' });
  const bob = verifier.mint({ subject: 'bob' });
  let key = 0;
  const fresh = () => `two-${++key}`;

  beforeAll(async () => {
    redis = await startRedis();
    const keyPrefix = redis.prefix();
    const start = (instanceId: string) =>
      startFixtureApp({
        providers: [Gates, TaskTools],
        mcp: {
          backend: new RedisMcpBackend({ url: redis.url, keyPrefix, instanceId, heartbeatMs: 200 }),
          auth: { resource: RESOURCE, authorizationServers: [STUB_ISSUER], verifier },
          modern: { requestStateKeys: ['tasks-instances-test-key-0123456789'] },
          tasks: { handoffMs: 20, pollIntervalMs: 100, maxPerCaller: 3, shutdownGraceMs: 50 },
        },
      });
    [a, b] = [await start('tasks-a'), await start('tasks-b')];
    proxy = await startRoundRobinProxy([a.origin, b.origin]);
  }, 30_000);

  afterAll(async () => {
    await proxy?.close();
    await a?.close().catch(() => undefined);
    await b?.close();
    await redis?.stop();
  });

  const as = (token: string, accept?: 'sse') => ({ headers: { authorization: `Bearer ${token}` }, accept });
  const get = (app: FixtureApp, taskId: string, token = alice) =>
    modernRequest(app.endpoint, 'tasks/get', { taskId }, as(token));
  const call = async (app: FixtureApp, name: string, k: string, token = alice) => {
    const answer = await modernRequest(app.endpoint, 'tools/call', { name, arguments: { key: k } }, as(token));
    return answer.message;
  };
  const poll = (app: FixtureApp, taskId: string, statuses: string[]) =>
    pollUntil(app.endpoint, taskId, statuses, 5_000, as(alice));

  it('created on one instance, polled on the other; a cancel there stops the handler where it runs', async () => {
    const k = fresh();
    const created = (await call(a, 'gated', k)).result;
    expect(created.resultType).toBe('task');
    expect((await get(b, created.taskId)).message.result).toMatchObject({ taskId: created.taskId, status: 'working' });
    expect(
      (await modernRequest(b.endpoint, 'tasks/cancel', { taskId: created.taskId }, as(alice))).message.result,
    ).toMatchObject({ resultType: 'complete' });
    await until(() => a.app.get(TaskTools).stopped.has(k), 'the handler on the other instance stopped');
    expect((await get(a, created.taskId)).message.result.status).toBe('cancelled');
  });

  it('input asked on one instance, answered on the other', async () => {
    const k = fresh();
    const created = (await call(a, 'ask_name', k)).result;
    a.app.get(Gates).gate(k).open();
    await poll(b, created.taskId, ['input_required']);
    await modernRequest(
      b.endpoint,
      'tasks/update',
      { taskId: created.taskId, inputResponses: { name: { action: 'accept', content: { name: 'Lin' } } } },
      as(alice),
    );
    const done = await poll(b, created.taskId, ['completed']);
    expect(done.result.content[0].text).toBe('Hello, Lin!');
  });

  it('another principal gets the answer of an unknown task on every instance, and changes nothing', async () => {
    const k = fresh();
    const created = (await call(a, 'gated', k)).result;
    for (const app of [a, b]) {
      for (const [method, params] of [
        ['tasks/get', { taskId: created.taskId }],
        ['tasks/cancel', { taskId: created.taskId }],
        ['tasks/update', { taskId: created.taskId, inputResponses: {} }],
      ] as const) {
        const answer = await modernRequest(app.endpoint, method, params, as(bob));
        expect(answer.message.error).toMatchObject({
          code: -32602,
          message: 'Failed to retrieve task: Task not found',
        });
      }
    }
    expect((await get(b, created.taskId)).message.result.status).toBe('working');
    a.app.get(Gates).gate(k).open();
    await poll(b, created.taskId, ['completed']);
  });

  it('the budget per principal spans the instances: past it a call is refused with 429', async () => {
    const carol = verifier.mint({ subject: 'carol' });
    const keys = [fresh(), fresh(), fresh(), fresh()];
    const first = await call(a, 'gated', keys[0], carol);
    const second = await call(b, 'gated', keys[1], carol);
    const third = await call(a, 'gated', keys[2], carol);
    for (const created of [first, second, third]) expect(created.result?.resultType).toBe('task');
    const refused = await modernRequest(
      b.endpoint,
      'tools/call',
      { name: 'gated', arguments: { key: keys[3] } },
      as(carol),
    );
    expect(refused.status).toBe(429);
    expect(refused.message.error).toMatchObject({ code: -32004, data: { limit: 3 } });
    for (const app of [a, b]) for (const k of keys) app.app.get(Gates).gate(k).open();
  });

  it('2025-11-25 through the round-robin proxy: the elicitation of a task reaches the client, whichever instance it asks', async () => {
    const client = new Client({ name: 'proxied', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Rui' } }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${proxy.origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice}` } },
      }),
    );
    try {
      await client.listTools();
      const k = fresh();
      for (const app of [a, b]) app.app.get(Gates).gate(k).open();
      const stream = client.experimental.tasks.callToolStream(
        { name: 'ask_name', arguments: { key: k } },
        CallToolResultSchema,
        { task: { ttl: 30_000 } },
      );
      let result: any;
      for await (const message of stream) {
        if (message.type === 'result') result = message.result;
        if (message.type === 'error') throw message.error;
      }
      expect(result.content[0].text).toBe('Hello, Rui!');
    } finally {
      await client.close();
    }
  }, 20_000);

  it('2025-11-25 without a GET stream: tasks/result on the other instance gets the task request relayed, and the result', async () => {
    const session = await legacySession(a.endpoint, { authorization: `Bearer ${alice}` });
    const k = fresh();
    a.app.get(Gates).gate(k).open();
    const created = await session.rpc('tools/call', { name: 'ask_name', arguments: { key: k }, task: {} });
    const { taskId } = created.result.task;
    await until(
      async () => (await session.rpc('tasks/get', { taskId }, b.endpoint)).result.status === 'input_required',
      'the task on instance a waits for input',
    );
    const stream = await session.openResult(taskId, b.endpoint);
    try {
      const asked = await stream.next();
      expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'Your name?' } });
      // The answer may go to either instance: it reaches the one that asked.
      expect(
        await session.post(
          { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Relayed' } } },
          b.endpoint,
        ),
      ).toBe(202);
      let answer = await stream.next();
      while (answer.method !== undefined) answer = await stream.next();
      expect(answer.result.content[0].text).toBe('Hello, Relayed!');
    } finally {
      stream.close();
    }
  });

  it('a task is gone on every instance once its time to live lapsed', async () => {
    const client = new Client({ name: 'ttl', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(a.endpoint), {
        requestInit: { headers: { authorization: `Bearer ${alice}` } },
      }),
    );
    try {
      const k = fresh();
      const { task } = await client.request(
        { method: 'tools/call', params: { name: 'gated', arguments: { key: k }, task: { ttl: 1_000 } } },
        CreateTaskResultSchema,
      );
      expect(task.ttl).toBe(1_000);
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
      await until(async () => a.app.get(TaskTools).stopped.has(k), 'the handler stopped when the ttl lapsed', 5_000);
      await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it('a graceful shutdown fails the tasks it could not finish; the other instance says so', async () => {
    const k = fresh();
    const created = (await call(a, 'gated', k)).result;
    await a.close();
    const failed = await poll(b, created.taskId, ['failed', 'completed', 'cancelled']);
    expect(failed).toMatchObject({
      status: 'failed',
      statusMessage: 'The server shut down before the task finished',
      error: { code: -32603 },
    });
  });
});
