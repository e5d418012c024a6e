/**
 * Tasks on three gateway processes on one Redis behind the round-robin proxy, in resource-server
 * mode (a real authorization server, two principals): a task created on one instance is polled
 * on another and cancelled on a third (the handler stops where it runs), a listen on one hears a
 * task that runs on another, another principal sees nothing of it, a task is gone everywhere
 * when its time to live lapsed, and a task whose instance is killed (`kill -9`) is failed, seen
 * from every other instance, within its liveness window. The tool is the gateway's
 * `notes.export`, one step per note.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ORPHANED_TASK } from '@nest-mcp/server/backend';
import { freePort } from '../support/free-port.js';
import { spawnClusterInstance, startGatewayCluster, type GatewayCluster } from '../support/gateway-cluster.js';
import { modernRequest, modernResult, WITH_TASKS } from '../support/modern-tasks-client.js';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { parseSseBlock } from '../support/sse-parse.js';
import { until } from '../support/until.js';

const SCOPES = 'notes:read notes:write';
const ALICE = { clientId: 'alice', clientSecret: 'alice-secret', scope: SCOPES };
const BOB = { clientId: 'bob', clientSecret: 'bob-secret', scope: SCOPES };
/** Instance liveness on Redis: a beat every 200 ms, gone after three missed (600 ms). */
const HEARTBEAT_MS = 200;
const STEP_MS = 250;
const NOTES = 12;

describe('tasks on three gateway processes on Redis behind the round-robin proxy', () => {
  let provider: OidcHarness;
  let cluster: GatewayCluster;
  let endpoint: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    const proxyPort = await freePort();
    endpoint = `http://127.0.0.1:${proxyPort}/mcp`;
    provider = await OidcHarness.start({ resources: { [endpoint]: { scope: SCOPES } }, clients: [ALICE, BOB] });
    cluster = await startGatewayCluster({
      proxyPort,
      env: {
        MCP_AUTH_ISSUER: provider.issuer,
        MCP_AUTH_AUDIENCE: endpoint,
        MCP_REDIS_HEARTBEAT_MS: String(HEARTBEAT_MS),
        NOTES_EXPORT_STEP_MS: String(STEP_MS),
      },
    });
    [alice, bob] = await Promise.all(
      [ALICE, BOB].map(({ clientId, clientSecret }) =>
        provider.token({ resource: endpoint, scope: SCOPES, clientId, clientSecret }),
      ),
    );
    for (let n = 1; n <= NOTES; n++) {
      await modernResult(
        endpoint,
        'tools/call',
        { name: 'notes.create', arguments: { title: `Note ${n}`, body: `body ${n}` } },
        as(alice),
      );
    }
  }, 120_000);

  afterAll(async () => {
    await cluster?.close();
    await provider?.close();
  }, 60_000);

  function as(token: string) {
    return { headers: { authorization: `Bearer ${token}` } };
  }

  /** The instance (index) that served the proxy's latest request. */
  const lastServed = () => cluster.proxy.served.at(-1)!.instance;

  /** The gateway's own count of the exports running on one instance. */
  async function exportsRunning(index: number): Promise<number> {
    const read = await modernResult(
      `${cluster.instances[index].origin}/mcp`,
      'resources/read',
      { uri: 'system://metrics' },
      as(alice),
    );
    return (JSON.parse(read.contents[0].text) as { exportsRunning: number }).exportsRunning;
  }

  /** Starts `notes.export` as a task through the proxy; returns it and the instance running it. */
  async function startExport(token = alice): Promise<{ taskId: string; runner: number }> {
    const created = await modernResult(
      endpoint,
      'tools/call',
      { name: 'notes.export', arguments: { format: 'json' } },
      as(token),
    );
    expect(created.resultType).toBe('task');
    return { taskId: created.taskId, runner: lastServed() };
  }

  it('created on one instance, polled on another, cancelled on the third: the handler stops where it runs', async () => {
    const { taskId, runner } = await startExport();
    expect(await exportsRunning(runner)).toBe(1);
    const polled = await modernResult(endpoint, 'tasks/get', { taskId }, as(alice));
    const poller = lastServed();
    expect(polled.status).toBe('working');
    await modernResult(endpoint, 'tasks/cancel', { taskId }, as(alice));
    const canceller = lastServed();
    expect(new Set([runner, poller, canceller]).size).toBe(3);
    await until(async () => (await exportsRunning(runner)) === 0, 'the export handler stopped on its instance');
    for (let i = 0; i < 3; i++) {
      expect((await modernResult(endpoint, 'tasks/get', { taskId }, as(alice))).status).toBe('cancelled');
    }
  }, 30_000);

  it('another principal gets the answer of an unknown task from every instance', async () => {
    const { taskId } = await startExport();
    try {
      for (let i = 0; i < 3; i++) {
        for (const [method, params] of [
          ['tasks/get', { taskId }],
          ['tasks/cancel', { taskId }],
        ] as const) {
          const answer = await modernRequest(endpoint, method, params, as(bob));
          expect(answer.message.error).toMatchObject({
            code: -32602,
            message: 'Failed to retrieve task: Task not found',
          });
        }
      }
      expect((await modernResult(endpoint, 'tasks/get', { taskId }, as(alice))).status).toBe('working');
    } finally {
      await modernResult(endpoint, 'tasks/cancel', { taskId }, as(alice));
    }
  }, 30_000);

  /** Opens a listen for `taskIds` (through the proxy, or on one instance's `origin`). */
  function listen(taskIds: string[], controller: AbortController, at = endpoint): Promise<Response> {
    return fetch(at, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${alice}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'cluster-listen',
        method: 'subscriptions/listen',
        params: {
          notifications: { taskIds },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
          },
        },
      }),
    });
  }

  it('a listen on one instance hears the end of a task that runs on another', async () => {
    const { taskId, runner } = await startExport();
    const controller = new AbortController();
    const response = await listen([taskId], controller);
    expect(lastServed()).not.toBe(runner);
    try {
      const messages = await readUntil(response, 'completed', 15_000);
      expect(messages[0].params.notifications).toEqual({ taskIds: [taskId] });
      const last = messages.at(-1);
      expect(last.params).toMatchObject({ taskId, status: 'completed' });
      expect(JSON.parse(last.params.result.content[0].text).notes).toHaveLength(NOTES);
    } finally {
      controller.abort();
    }
  }, 30_000);

  it('a task is gone on every instance once its time to live lapsed (2025-11-25 client, params.task.ttl)', async () => {
    const client = new Client({ name: 'ttl', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint), {
        requestInit: { headers: { authorization: `Bearer ${alice}` } },
      }),
    );
    try {
      const { task } = await client.request(
        { method: 'tools/call', params: { name: 'notes.export', arguments: { format: 'json' }, task: { ttl: 1_000 } } },
        CreateTaskResultSchema,
      );
      expect(task.ttl).toBe(1_000);
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
      await until(
        async () =>
          (await client.experimental.tasks.getTask(task.taskId).then(
            () => false,
            (error: { code?: number }) => error.code === -32602,
          )) === true,
        'the task gone after its ttl',
      );
      // The proxy sends each request of the session to another instance: three in a row are all three.
      for (let i = 0; i < 3; i++) {
        await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
      }
    } finally {
      await client.close();
    }
  }, 30_000);

  it('kill -9 of the instance running a task: every other instance says failed within its liveness window', async () => {
    const { taskId, runner } = await startExport();
    const victim = cluster.instances[runner];
    const survivors = cluster.instances.filter((_, index) => index !== runner);
    // A listen on a survivor hears the failure too.
    const controller = new AbortController();
    const listening = readUntil(await listen([taskId], controller, `${survivors[1].origin}/mcp`), 'failed', 15_000);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    let seen: any;
    await until(
      async () => {
        seen = await modernResult(`${survivors[0].origin}/mcp`, 'tasks/get', { taskId }, as(alice));
        return seen.status !== 'working';
      },
      'the task of the killed instance failed',
      10_000,
    );
    // The liveness key lapses three beats after the last one; the next read fails the task.
    expect(Date.now() - killedAt).toBeLessThan(3 * HEARTBEAT_MS + 2_000);
    expect(seen).toMatchObject({
      status: 'failed',
      statusMessage: ORPHANED_TASK.statusMessage,
      error: { code: -32603 },
    });
    expect((await modernResult(`${survivors[1].origin}/mcp`, 'tasks/get', { taskId }, as(alice))).status).toBe(
      'failed',
    );
    try {
      expect((await listening).at(-1).params).toMatchObject({ taskId, status: 'failed' });
    } finally {
      controller.abort();
    }
    const restarted = await spawnClusterInstance(cluster, runner);
    cluster.proxy.retarget(runner, restarted.origin);
    cluster.instances[runner] = restarted;
  }, 60_000);
});

/** Reads an SSE response until a `notifications/tasks` with `status` (bounded); returns every message read. */
async function readUntil(response: Response, status: string, timeoutMs: number): Promise<any[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const messages: any[] = [];
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms: ${JSON.stringify(messages)}`);
    let timer: NodeJS.Timeout | undefined;
    const chunk = await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no message in time')), left))),
    ]).finally(() => clearTimeout(timer));
    if (chunk.done) throw new Error(`the stream ended: ${JSON.stringify(messages)}`);
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = parseSseBlock(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (!event?.data) continue;
      const message = JSON.parse(event.data);
      messages.push(message);
      if (message.method === 'notifications/tasks' && message.params?.status === status) return messages;
    }
  }
}
