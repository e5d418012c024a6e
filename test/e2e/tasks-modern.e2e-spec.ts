/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, MCP 2026-07-28) on Streamable HTTP, over
 * raw HTTP (no SDK has a client of it): server-directed creation after the handoff window,
 * polling, input through `tasks/update`, cancellation, the status notifications of a listen,
 * errors and bounds. Every shape is checked with Ajv against the extension's types
 * (test/support/tasks-extension-schema.ts). Handlers wait at gates the test opens.
 */
import { InMemoryMcpBackend } from '@nest-mcp/server/backend';
import { FaultyMcpBackend } from '@nest-mcp/server/testing';
import { Gates } from '../fixtures/gates.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { TaskTools } from '../fixtures/task.tools.js';
import { modernRequest, modernResult, pollUntil, TASKS_EXTENSION, WITH_TASKS } from '../support/modern-tasks-client.js';
import { parseSseBlock } from '../support/sse-parse.js';
import { taskShapeProblems } from '../support/tasks-extension-schema.js';
import { until } from '../support/until.js';

const WITHOUT_TASKS = { elicitation: {} };

describe('Tasks extension (2026-07-28) on Streamable HTTP', () => {
  let app: FixtureApp;
  let gates: Gates;
  let tools: TaskTools;
  let key = 0;
  const fresh = () => `k${++key}`;

  beforeAll(async () => {
    app = await startFixtureApp({
      providers: [Gates, TaskTools],
      mcp: { tasks: { handoffMs: 20, pollIntervalMs: 250, maxResultBytes: 4_000 } },
    });
    gates = app.app.get(Gates);
    tools = app.app.get(TaskTools);
  });

  afterAll(async () => {
    await app?.close();
  });

  const call = (name: string, args: Record<string, unknown>, capabilities: Record<string, unknown> = WITH_TASKS) =>
    modernRequest(app.endpoint, 'tools/call', { name, arguments: args }, { capabilities });

  /** Starts `gated` as a task and returns its CreateTaskResult. */
  async function startGated(): Promise<{ key: string; created: any }> {
    const k = fresh();
    const answer = await call('gated', { key: k });
    expect(answer.message.result?.resultType).toBe('task');
    return { key: k, created: answer.message.result };
  }

  it('declares the extension in server/discover, and never the 2025-11-25 tasks capability', async () => {
    const discover = await modernResult(app.endpoint, 'server/discover');
    expect(discover.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect(discover.capabilities.tasks).toBeUndefined();
  });

  it('lists tools without the 2025-11-25 execution.taskSupport field', async () => {
    const { tools: listed } = await modernResult(app.endpoint, 'tools/list');
    expect(listed.find((tool: any) => tool.name === 'gated')).toBeDefined();
    expect(listed.every((tool: any) => tool.execution === undefined)).toBe(true);
  });

  it('a call still running after the handoff window becomes a task: created, polled, completed with its result', async () => {
    const { key: k, created } = await startGated();
    expect(taskShapeProblems('CreateTaskResult', created)).toEqual([]);
    expect(created).toMatchObject({ status: 'working', pollIntervalMs: 250, ttlMs: 3_600_000 });
    // Readable at once: the task existed before its CreateTaskResult went out.
    const working = await modernResult(app.endpoint, 'tasks/get', { taskId: created.taskId });
    expect(taskShapeProblems('GetTaskResult', working)).toEqual([]);
    await until(async () => {
      const task = await modernResult(app.endpoint, 'tasks/get', { taskId: created.taskId });
      return task.statusMessage === `waiting at ${k}`;
    }, 'the status message of the progress report');
    gates.gate(k).open();
    const done = await pollUntil(app.endpoint, created.taskId, ['completed']);
    expect(taskShapeProblems('GetTaskResult', done)).toEqual([]);
    expect(done.result.structuredContent ?? JSON.parse(done.result.content[0].text)).toEqual({ passed: k });
    expect(done.result._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();
    expect(tools.taskIds.get(k)).toBe(created.taskId);
  });

  it('a call that ends within the window answers with its own result', async () => {
    const answer = await call('instant', { key: 'now' });
    expect(answer.message.result).toMatchObject({ resultType: 'complete', content: [{ text: 'instant now inline' }] });
    expect(answer.message.result.taskId).toBeUndefined();
  });

  it('without the extension: an optional tool runs inline, a required one is -32021 naming the extension', async () => {
    const inline = await call('instant', { key: 'plain' }, WITHOUT_TASKS);
    expect(inline.message.result).toMatchObject({ resultType: 'complete' });
    const refused = await call('must_task', { key: fresh() }, WITHOUT_TASKS);
    expect(refused.status).toBe(400);
    expect(refused.message.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  });

  it('a legacy params.task never makes a task of a tool without task support', async () => {
    const answer = await modernRequest(app.endpoint, 'tools/call', {
      name: 'never_task',
      arguments: { key: 'hint' },
      task: { ttl: 60_000 },
    });
    expect(answer.message.result).toMatchObject({ resultType: 'complete', content: [{ text: 'never hint' }] });
  });

  it('gates tasks/get, tasks/update and tasks/cancel on the extension (-32021), and has no tasks/result or tasks/list', async () => {
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      const answer = await modernRequest(app.endpoint, method, params, { capabilities: WITHOUT_TASKS });
      expect(answer.message.error?.code).toBe(-32021);
    }
    for (const method of ['tasks/result', 'tasks/list']) {
      const answer = await modernRequest(app.endpoint, method, { taskId: 'x' });
      expect(answer.message.error?.code).toBe(-32601);
    }
  });

  it('answers -32602 for an unknown task id, on every task method', async () => {
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const answer = await modernRequest(app.endpoint, method, { taskId: 'no-such-task' });
      expect(answer.message.error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    }
    const update = await modernRequest(app.endpoint, 'tasks/update', { taskId: 'no-such-task', inputResponses: {} });
    expect(update.message.error?.code).toBe(-32602);
  });

  it('checks Mcp-Name against the task id (-32020, HTTP 400)', async () => {
    const { key: k, created } = await startGated();
    const answer = await modernRequest(
      app.endpoint,
      'tasks/get',
      { taskId: created.taskId },
      { headers: { 'mcp-name': 'another-task' } },
    );
    expect(answer.status).toBe(400);
    expect(answer.message.error?.code).toBe(-32020);
    gates.gate(k).open();
  });

  it('tasks/cancel acknowledges, settles the task cancelled and stops its handler; a second cancel acknowledges too', async () => {
    const { key: k, created } = await startGated();
    const ack = await modernResult(app.endpoint, 'tasks/cancel', { taskId: created.taskId });
    expect(taskShapeProblems('CancelTaskResult', ack)).toEqual([]);
    const cancelled = await modernResult(app.endpoint, 'tasks/get', { taskId: created.taskId });
    expect(cancelled.status).toBe('cancelled');
    expect(taskShapeProblems('GetTaskResult', cancelled)).toEqual([]);
    await until(() => tools.stopped.has(k), 'the handler saw its signal abort');
    // Terminal statuses never change: the handler's end does not overwrite it.
    expect((await modernResult(app.endpoint, 'tasks/get', { taskId: created.taskId })).status).toBe('cancelled');
    expect(await modernResult(app.endpoint, 'tasks/cancel', { taskId: created.taskId })).toEqual(
      expect.objectContaining({ resultType: 'complete' }),
    );
  });

  it('a tool error completes the task with result.isError; a JSON-RPC error fails it with the error inlined', async () => {
    const [errorKey, failKey] = [fresh(), fresh()];
    const toolError = (await call('tool_error', { key: errorKey })).message.result;
    const protocolError = (await call('protocol_error', { key: failKey })).message.result;
    gates.gate(errorKey).open();
    gates.gate(failKey).open();
    const completed = await pollUntil(app.endpoint, toolError.taskId, ['completed', 'failed']);
    expect(completed).toMatchObject({ status: 'completed', result: { isError: true } });
    const failed = await pollUntil(app.endpoint, protocolError.taskId, ['completed', 'failed']);
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32011, message: 'Upstream refused' },
      statusMessage: `the upstream of ${failKey} refused`,
    });
    for (const task of [completed, failed]) expect(taskShapeProblems('GetTaskResult', task)).toEqual([]);
  });

  it('a result over tasks.maxResultBytes fails its task with a message that says so', async () => {
    const k = 'x'.repeat(10);
    const created = (await call('big_result', { key: k })).message.result;
    gates.gate(k).open();
    const failed = await pollUntil(app.endpoint, created.taskId, ['completed', 'failed']);
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe(-32603);
    expect(failed.statusMessage).toMatch(/over the 4000 bytes this server keeps \(tasks\.maxResultBytes\)/);
  });

  it('input inside a task: input_required with the request, answered with tasks/update, then completed', async () => {
    const k = fresh();
    const created = (await call('ask_name', { key: k })).message.result;
    gates.gate(k).open();
    const waiting = await pollUntil(app.endpoint, created.taskId, ['input_required']);
    expect(taskShapeProblems('GetTaskResult', waiting)).toEqual([]);
    expect(waiting.inputRequests).toEqual({
      name: { method: 'elicitation/create', params: expect.objectContaining({ message: 'Your name?' }) },
    });
    expect(waiting.requestState).toBeUndefined();
    // A key that is not outstanding is ignored; a malformed answer to one that is, refused.
    expect(
      await modernResult(app.endpoint, 'tasks/update', { taskId: created.taskId, inputResponses: { other: {} } }),
    ).toMatchObject({ resultType: 'complete' });
    const malformed = await modernRequest(app.endpoint, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { name: { nope: true } },
    });
    expect(malformed.message.error?.code).toBe(-32602);
    const ack = await modernResult(app.endpoint, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(taskShapeProblems('UpdateTaskResult', ack)).toEqual([]);
    const done = await pollUntil(app.endpoint, created.taskId, ['completed']);
    expect(done.result.content[0].text).toBe('Hello, Ada!');
  });

  it('two asks at once: both outstanding; answering one keeps the task input_required with the other', async () => {
    const k = fresh();
    const created = (await call('ask_twice', { key: k })).message.result;
    gates.gate(k).open();
    let waiting: any;
    await until(async () => {
      waiting = await modernResult(app.endpoint, 'tasks/get', { taskId: created.taskId });
      return Object.keys(waiting.inputRequests ?? {}).length === 2;
    }, 'two outstanding input requests');
    const [first, second] = Object.keys(waiting.inputRequests);
    await modernResult(app.endpoint, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [first]: { action: 'accept', content: { value: 'one' } } },
    });
    const partial = await modernResult(app.endpoint, 'tasks/get', { taskId: created.taskId });
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests)).toEqual([second]);
    await modernResult(app.endpoint, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [second]: { action: 'accept', content: { value: 'two' } } },
    });
    const done = await pollUntil(app.endpoint, created.taskId, ['completed']);
    expect(done.result.content[0].text).toBe('one and two');
  });

  it("ctx.becomeTask() makes the call a task at once, so what it asks next is the task's input", async () => {
    const created = (await call('ask_as_task', { key: 'now' })).message.result;
    expect(created.resultType).toBe('task');
    const waiting = await pollUntil(app.endpoint, created.taskId, ['input_required']);
    expect(Object.keys(waiting.inputRequests)).toEqual(['name']);
    await modernResult(app.endpoint, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Kim' } } },
    });
    const done = await pollUntil(app.endpoint, created.taskId, ['completed']);
    expect(done.result.content[0].text).toBe('Kim (now, task: true)');
  });

  it('asks in its request first (input_required, no task), then becomes a task on the retry that answers', async () => {
    const k = fresh();
    const round1 = (await call('ask_first', { key: k })).message.result;
    expect(round1).toMatchObject({ resultType: 'input_required', inputRequests: { name: expect.any(Object) } });
    expect(round1.taskId).toBeUndefined();
    const round2 = (
      await modernRequest(app.endpoint, 'tools/call', {
        name: 'ask_first',
        arguments: { key: k },
        inputResponses: { name: { action: 'accept', content: { name: 'Alice' } } },
        requestState: round1.requestState,
      })
    ).message.result;
    expect(taskShapeProblems('CreateTaskResult', round2)).toEqual([]);
    expect(round2.requestState).toBeUndefined();
    gates.gate(k).open();
    const done = await pollUntil(app.endpoint, round2.taskId, ['completed']);
    expect(done.result.content[0].text).toBe('Hello again, Alice!');
  });

  it('a listen with taskIds hears notifications/tasks on each change of status, stamped with its subscription id', async () => {
    const { key: k, created } = await startGated();
    const controller = new AbortController();
    const response = await fetch(app.endpoint, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: {
          notifications: { taskIds: [created.taskId, 'not-a-task-of-mine'] },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
          },
        },
      }),
    });
    const events = readEvents(response);
    try {
      const ack = await events.next();
      expect(ack.method).toBe('notifications/subscriptions/acknowledged');
      expect(ack.params.notifications).toEqual({ taskIds: [created.taskId] });
      gates.gate(k).open();
      const notification = await events.next();
      expect(taskShapeProblems('TaskStatusNotification', notification)).toEqual([]);
      expect(notification.params).toMatchObject({ taskId: created.taskId, status: 'completed' });
      expect(notification.params._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': 'listen-1' });
    } finally {
      controller.abort();
    }
  });

  it('a listen asking for task notifications without the extension is -32021', async () => {
    const answer = await modernRequest(
      app.endpoint,
      'subscriptions/listen',
      { notifications: { taskIds: ['x'] } },
      { capabilities: WITHOUT_TASKS, accept: 'sse' },
    );
    expect(answer.message.error?.code).toBe(-32021);
  });
});

/** Reads the JSON-RPC messages of an SSE response one at a time (each bounded by 5 s). */
function readEvents(response: Response): { next(): Promise<any> } {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const ready: any[] = [];
  return {
    async next() {
      const deadline = Date.now() + 5_000;
      while (ready.length === 0) {
        if (Date.now() > deadline) throw new Error('no event within 5000 ms');
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no event within 5000 ms')), 5_000)),
        ]);
        if (chunk.done) throw new Error('the stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = parseSseBlock(block);
          if (event?.data) ready.push(JSON.parse(event.data));
        }
      }
      return ready.shift();
    },
  };
}

describe('Tasks when the task store cannot be reached', () => {
  let app: FixtureApp;
  const backend = new FaultyMcpBackend(new InMemoryMcpBackend());

  beforeAll(async () => {
    app = await startFixtureApp({ providers: [Gates, TaskTools], mcp: { backend, tasks: { handoffMs: 20 } } });
  });

  afterAll(async () => {
    backend.faults.heal();
    await app?.close();
  });

  it('answers 503 with Retry-After for a poll, and for a call whose task cannot be created (its handler told to stop)', async () => {
    const gates = app.app.get(Gates);
    const created = (await modernRequest(app.endpoint, 'tools/call', { name: 'gated', arguments: { key: 'kept' } }))
      .message.result;
    backend.faults.fail('tasks.get', 'tasks.create');
    const poll = await modernRequest(app.endpoint, 'tasks/get', { taskId: created.taskId });
    expect(poll.status).toBe(503);
    expect(poll.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(poll.message.error).toMatchObject({ code: -32000, message: 'Service unavailable' });
    const refused = await modernRequest(app.endpoint, 'tools/call', { name: 'gated', arguments: { key: 'lost' } });
    expect(refused.status).toBe(503);
    await until(() => app.app.get(TaskTools).stopped.has('lost'), 'the handler of the uncreated task stopped');
    backend.faults.heal();
    gates.gate('kept').open();
    expect((await pollUntil(app.endpoint, created.taskId, ['completed'])).status).toBe('completed');
  });
});

describe('Tasks extension (2026-07-28): polls are counted', () => {
  let app: FixtureApp;
  let gates: Gates;

  beforeAll(async () => {
    app = await startFixtureApp({
      providers: [Gates, TaskTools],
      mcp: { tasks: { handoffMs: 20, pollRateLimit: { limit: 3, windowMs: 60_000 } } },
    });
    gates = app.app.get(Gates);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('past tasks.pollRateLimit a poll is -32004 (HTTP 429 with Retry-After); tool calls keep their own budget', async () => {
    const created = (await modernRequest(app.endpoint, 'tools/call', { name: 'gated', arguments: { key: 'polled' } }))
      .message.result;
    expect(created.resultType).toBe('task');
    for (let n = 0; n < 3; n++) {
      expect((await modernRequest(app.endpoint, 'tasks/get', { taskId: created.taskId })).message.result).toBeDefined();
    }
    const refused = await modernRequest(app.endpoint, 'tasks/get', { taskId: created.taskId });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.message.error).toMatchObject({ code: -32004, data: { limit: 3, windowMs: 60_000 } });
    // The same window covers every task method.
    const cancel = await modernRequest(app.endpoint, 'tasks/cancel', { taskId: created.taskId });
    expect(cancel.message.error?.code).toBe(-32004);
    const call = await modernRequest(app.endpoint, 'tools/call', { name: 'instant', arguments: { key: 'still' } });
    expect(call.message.result).toMatchObject({ resultType: 'complete' });
    gates.gate('polled').open();
  });
});
