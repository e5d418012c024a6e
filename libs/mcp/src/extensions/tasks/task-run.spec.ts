import { describe, expect, it, jest } from '@jest/globals';
import { InMemoryTaskStore } from './store/in-memory-task.store.js';
import type { McpTaskRecord, McpTaskStore } from './store/mcp-task.store.js';
import { McpException } from '../../errors/mcp.exception.js';
import { McpErrorMapper } from '../../protocol/mcp-error.mapper.js';
import type { McpTaskChannels } from './task-channels.js';
import type { McpTaskEvents } from './task-events.js';
import { TaskRun, type TaskRunInit } from './task-run.js';
import { McpTaskAbandonedError } from './task.errors.js';
import { taskLimits } from '../../testing/task-store-contract.js';

function setup(era: 'legacy' | 'modern', options: { maxResultBytes?: number; store?: McpTaskStore } = {}) {
  const store = options.store ?? new InMemoryTaskStore();
  const changed = jest.fn();
  const services = {
    store,
    events: { changed } as unknown as McpTaskEvents,
    channels: {
      deliver: () => false,
      notifySession: () => undefined,
      forget: () => undefined,
    } as unknown as McpTaskChannels,
    clientRequests: {} as never,
    errors: new McpErrorMapper(),
    maxResultBytes: options.maxResultBytes ?? 10_000,
  };
  const init: TaskRunInit = { era, method: 'tools/call' };
  const run = new TaskRun(services, init);
  const now = Date.now();
  const record: McpTaskRecord = {
    taskId: `task-${Math.random()}`,
    owner: 'o',
    instanceId: 'i',
    era,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
  };
  return { store, run, record, changed };
}

async function created(era: 'legacy' | 'modern', options?: { maxResultBytes?: number; store?: McpTaskStore }) {
  const fixture = setup(era, options);
  await fixture.store.create(fixture.record, taskLimits({ maxPerCaller: 10 }));
  fixture.run.attach(fixture.record);
  return fixture;
}

const isError = { content: [{ type: 'text', text: 'no luck' }], isError: true };

describe('TaskRun: how a handler ends its task', () => {
  it('an isError result fails a 2025-11-25 task (with the result) and completes a tasks-extension one', async () => {
    const legacy = await created('legacy');
    await legacy.run.finish({ ok: true, result: isError });
    expect(await legacy.store.get(legacy.record.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'no luck',
      result: isError,
    });
    const modern = await created('modern');
    await modern.run.finish({ ok: true, result: isError });
    expect(await modern.store.get(modern.record.taskId)).toMatchObject({ status: 'completed', result: isError });
    expect(modern.changed).toHaveBeenCalledTimes(1);
  });

  it('a protocol error fails the task with that JSON-RPC error', async () => {
    const { store, run, record } = await created('modern');
    await run.finish({ ok: false, error: new McpException(-32011, 'Upstream refused', 'busy', { retry: true }) });
    expect(await store.get(record.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'busy',
      error: { code: -32011, message: 'Upstream refused', data: { retry: true, detail: 'busy' } },
    });
  });

  it('a result over the bound fails the task with a message naming the bound; the result is not kept', async () => {
    const { store, run, record } = await created('modern', { maxResultBytes: 100 });
    await run.finish({ ok: true, result: { content: [{ type: 'text', text: 'x'.repeat(200) }] } });
    const failed = await store.get(record.taskId);
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(failed?.statusMessage).toMatch(/over the 100 bytes this server keeps \(tasks\.maxResultBytes\)/);
    expect(failed?.result).toBeUndefined();
  });

  it('a task cancelled meanwhile stays cancelled, whatever the handler returns', async () => {
    const { store, run, record } = await created('modern');
    await store.settle(record.taskId, { status: 'cancelled' }, Date.now());
    run.cancel();
    await run.finish({ ok: true, result: { content: [] } });
    expect((await store.get(record.taskId))?.status).toBe('cancelled');
  });

  it('abandoned (shutdown): the handler is told to stop and the task fails with the reason', async () => {
    const { store, run, record } = await created('legacy');
    await run.abandon('The server shut down before the task finished');
    expect(run.signal.reason).toBeInstanceOf(McpTaskAbandonedError);
    expect(await store.get(record.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'The server shut down before the task finished',
      error: { code: -32603 },
    });
  });

  it('a task never created writes nothing, and its handler is told to stop', async () => {
    const { store, run, record } = setup('modern');
    run.notCreated(new Error('quota'));
    await run.setStatusMessage('ignored');
    await run.finish({ ok: true, result: { content: [] } });
    expect(await store.get(record.taskId)).toBeUndefined();
    expect(run.signal.aborted).toBe(true);
  });
});

describe('TaskRun: status messages and asks', () => {
  it('coalesces status messages: while one is written only the latest of the next ones follows it', async () => {
    const store = new InMemoryTaskStore();
    const writes: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = Object.create(store) as McpTaskStore;
    slow.setStatusMessage = async (taskId, message, now) => {
      writes.push(message);
      if (writes.length === 1) await held;
      return store.setStatusMessage(taskId, message, now);
    };
    const { run, record } = await created('modern', { store: slow });
    const first = run.setStatusMessage('one');
    // 'one' is on its way (held by the store) before the next two are set.
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['one']);
    void run.setStatusMessage('two');
    const last = run.setStatusMessage('three');
    release();
    await Promise.all([first, last]);
    expect(writes).toEqual(['one', 'three']);
    expect((await store.get(record.taskId))?.statusMessage).toBe('three');
  });

  it('asks made together are outstanding together, under keys never used twice in the task', async () => {
    const { store, run, record } = await created('modern');
    const asks = [
      run.ask('elicitation/create', { message: 'a' }, 'name'),
      run.ask('elicitation/create', { message: 'b' }, 'name'),
      run.ask('roots/list', {}),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = await store.get(record.taskId);
    expect(waiting?.status).toBe('input_required');
    expect(Object.keys(waiting?.inputRequests ?? {}).sort()).toEqual(['name', 'name-2', 'roots-3']);
    await store.answer(
      record.taskId,
      { name: { action: 'accept' }, 'name-2': { action: 'decline' }, 'roots-3': { roots: [] } },
      Date.now(),
    );
    await run.collectAnswers();
    expect(await Promise.all(asks)).toEqual([{ action: 'accept' }, { action: 'decline' }, { roots: [] }]);
    run.cancel();
  });

  it('a cancelled task rejects the asks that wait, with the cancellation', async () => {
    const { run } = await created('modern');
    const ask = run.ask('elicitation/create', { message: 'a' });
    run.cancel();
    await expect(ask).rejects.toThrow('The task was cancelled by request');
  });
});
