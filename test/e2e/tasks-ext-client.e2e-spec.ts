/**
 * The official client of the tasks extension (`@modelcontextprotocol/ext-tasks`) against the
 * module's tasks in the 2026-07-28 era: an SDK v2 client pinned to 2026-07-28 gives the session
 * (`server/discover` tells it the extension is served), and the extension's raw dispatch (which
 * the SDK's own codecs cannot carry) is a POST with the metadata headers the extension asks for.
 * The client validates every answer against the extension's schemas: a completed task whose
 * embedded result lacks `resultType: "complete"` reads as failed.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  toolDeclaration,
  type RawClientDispatch,
  type TaskEnabledSession,
  type ToolDeclaration,
} from '@modelcontextprotocol/ext-tasks/client';
import { Gates } from '../fixtures/gates.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { TaskTools } from '../fixtures/task.tools.js';
import { parseSse, rawPost } from '../support/raw-http.js';
import { TASKS_EXTENSION } from '../support/modern-tasks-client.js';

const MODERN_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'ext-tasks-e2e', version: '1.0.0' };
const CLIENT_CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } };

/** The names the extension's requests carry in `Mcp-Name`. */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * The tools as the client would learn them from `tools/list`. Given here because under Jest the
 * SDK's parsed answers are objects of another realm (their prototype is not the test's
 * `Object.prototype`), which the extension's JSON check refuses before it looks at them.
 */
const TOOLS: Record<string, ToolDeclaration> = Object.fromEntries(
  ['gated', 'instant', 'protocol_error'].map((name) => [
    name,
    toolDeclaration({
      name,
      inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      taskSupport: 'optional',
    }),
  ]),
);

let nextId = 1;

/**
 * The host's request coordinator: gives the framed request (method and params) a JSON-RPC id and
 * POSTs it with the headers a 2026-07-28 request carries.
 */
function rawDispatchTo(endpoint: string): RawClientDispatch {
  return async (request) => {
    const framed = request as { method: string; params?: Record<string, unknown> };
    const message = { jsonrpc: '2.0', id: nextId++, method: framed.method, params: framed.params };
    const field = NAME_FIELD[message.method];
    const name = field ? message.params?.[field] : undefined;
    const answer = await rawPost(endpoint, message, {
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': message.method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    });
    const messages = (answer.headers.get('content-type') ?? '').includes('text/event-stream')
      ? parseSse(answer.text).map((event) => JSON.parse(event.data))
      : [answer.json];
    const reply = messages.findLast((candidate) => candidate?.id === message.id);
    if (!reply) throw new Error(`No answer to ${message.method}: HTTP ${answer.status} ${answer.text}`);
    return reply.error ? { kind: 'error', error: reply.error } : { kind: 'result', result: reply.result };
  };
}

describe('Tasks extension with the official @modelcontextprotocol/ext-tasks client', () => {
  let app: FixtureApp;
  let gates: Gates;
  let client: Client;
  let session: TaskEnabledSession;
  let key = 0;
  const fresh = () => `ext${++key}`;

  beforeAll(async () => {
    app = await startFixtureApp({
      providers: [Gates, TaskTools],
      mcp: { tasks: { handoffMs: 20, pollIntervalMs: 50 } },
    });
    gates = app.app.get(Gates);
  });

  beforeEach(async () => {
    client = new Client(CLIENT_INFO, {
      capabilities: CLIENT_CAPABILITIES,
      versionNegotiation: { mode: { pin: MODERN_VERSION } },
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(app.endpoint)));
    session = createTaskSessionFromClient(client, {
      endpointId: 'fixture',
      tools: { currentTool: (name) => TOOLS[name] },
      rawDispatch: rawDispatchTo(app.endpoint),
      v2RequestFraming: {
        protocolVersion: MODERN_VERSION,
        clientInfo: CLIENT_INFO,
        clientCapabilities: CLIENT_CAPABILITIES,
      },
    });
  });

  afterEach(async () => {
    await session?.close();
    await client?.close().catch(() => undefined);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('sees the extension in the session', () => {
    expect(session.capabilities).toMatchObject({ execution: true, cancellation: true, inputResponses: true });
  });

  it('a call that becomes a task settles completed with its result', async () => {
    const k = fresh();
    const execution = await session.callTool('gated', { key: k });
    expect(execution.kind).toBe('task');
    await gates.gate(k).whenArrived(1);
    gates.gate(k).open();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('completed');
    const result =
      outcome.status === 'completed' ? (outcome.result as { content: Array<{ text: string }> }) : undefined;
    expect(result).toMatchObject({ resultType: 'complete' });
    expect(JSON.parse(result!.content[0].text)).toEqual({ passed: k });
  });

  it('a call that ends within the window is an immediate result', async () => {
    const execution = await session.callTool('instant', { key: 'now' });
    expect(execution.kind).toBe('immediate');
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: 'completed', result: { content: [{ text: 'instant now inline' }] } });
  });

  it('a task that fails settles failed with its JSON-RPC error', async () => {
    const k = fresh();
    const execution = await session.callTool('protocol_error', { key: k });
    expect(execution.kind).toBe('task');
    gates.gate(k).open();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' ? outcome.error.message : '').toContain('Upstream refused');
  });

  it('a cancelled task settles cancelled', async () => {
    const k = fresh();
    const execution = await session.callTool('gated', { key: k });
    expect(execution.kind).toBe('task');
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
  });
});
