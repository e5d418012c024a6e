import { describe, expect, it, jest } from '@jest/globals';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpInsufficientScopeException } from '../../auth/mcp-auth.exceptions.js';
import { McpAuthenticator } from '../../auth/mcp-authenticator.js';
import { InMemoryTaskStore } from './store/in-memory-task.store.js';
import { LocalInstanceMessaging } from '../../backend/in-memory/local-instance-messaging.js';
import { ORPHANED_TASK, type McpTaskRecord } from './store/mcp-task.store.js';
import type { McpClientRequests } from '../../client-requests/mcp-client-requests.js';
import type { ChannelContext } from '../../context/channel-context.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { LegacyEraContext } from '../../protocol/eras/legacy-era.context.js';
import { ModernEraContext } from '../../protocol/eras/modern-era.context.js';
import type { McpEra } from '../../protocol/inbound/inbound.js';
import type { McpModernEnvelope } from '../../protocol/inbound/modern-envelope.js';
import { RequestContext } from '../../protocol/request-context.js';
import { resolveMcpOptions } from '../../mcp-options.resolver.js';
import { McpErrorMapper } from '../../protocol/mcp-error.mapper.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { McpToolRegistry } from '../../registry/mcp-tool.registry.js';
import type { McpSessionManager } from '../../session/mcp-session.manager.js';
import { RawJson, stringifyJson } from '../../model/raw-json.js';
import { McpTasks } from './mcp-tasks.service.js';
import { McpTaskLookup } from './task-lookup.js';
import { McpTaskRunFactory } from './task-run-factory.js';
import { McpTaskRuns } from './task-runs.js';
import { detailedTask } from './modern-tasks.js';
import type { McpTaskChannels } from './task-channels.js';
import { McpTaskEvents } from './task-events.js';
import { McpTaskNotFoundException } from './task.exceptions.js';
import { taskLimits, taskRecord } from '../../testing/task-store-contract.js';

function tasksWith(store = new InMemoryTaskStore(), overrides: Record<string, unknown> = {}) {
  const messaging = new LocalInstanceMessaging('here');
  const events = new McpTaskEvents(messaging);
  const channels = {
    forget: () => undefined,
    notifySession: () => undefined,
  } as unknown as McpTaskChannels;
  const sessions = { onSessionEnd: () => undefined } as unknown as McpSessionManager;
  const options = resolveMcpOptions({ serverInfo: { name: 't', version: '1' }, ...overrides });
  const errors = new McpErrorMapper();
  const telemetry = new McpTelemetry();
  const runs = new McpTaskRuns(options, messaging, store, events, sessions, telemetry);
  const factory = new McpTaskRunFactory(options, store, events, channels, errors, telemetry);
  const lookup = new McpTaskLookup(
    options,
    store,
    new McpAccessPolicy(new McpAuthenticator(options)),
    events,
    channels,
  );
  const started = new McpTasks(options, store, new McpToolRegistry(), runs, factory);
  // The parts of tasks this spec drives: starting a call, finding a task, this instance's runs.
  const tasks = {
    start: started.start.bind(started),
    find: lookup.find.bind(lookup),
    ownerOf: lookup.ownerOf.bind(lookup),
    beforeApplicationShutdown: runs.beforeApplicationShutdown.bind(runs),
    get runningCount() {
      return started.runningCount;
    },
  };
  return { tasks, events, store };
}

/** Resolves once `condition()` holds (checked every few ms, at most 2 s). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The context of a `tools/call` as the dispatch builds it, on the request's own channel: from
 * `subject` with `scopes` (none: anonymous), in the modern era unless told. These tasks never ask
 * the client.
 */
function ctx(subject?: string, scopes: string[] = [], era: McpEra = 'modern'): ChannelContext {
  const dispatch: McpDispatchContext = {
    transport: 'streamable-http',
    sessionsEnabled: false,
    auth: subject ? { issuer: 'https://issuer', subject, scopes, audience: [], claims: {} } : undefined,
  };
  const params = { name: 'work' };
  const envelope = { protocolVersion: '2026-07-28', clientCapabilities: {} } as unknown as McpModernEnvelope;
  return new RequestContext({
    rpc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
    params,
    dispatch,
    era:
      era === 'modern'
        ? new ModernEraContext(envelope, undefined)
        : new LegacyEraContext('2025-11-25', dispatch, {} as McpClientRequests),
  });
}

/** A working modern task of a gone instance (the contract's record, without a caller). */
const record = (overrides: Partial<McpTaskRecord>): McpTaskRecord =>
  taskRecord({ caller: undefined, taskId: 'task-1', owner: 'm:', instanceId: 'gone', ...overrides });

describe('McpTasks', () => {
  it('answers a task of another principal exactly as an unknown one', async () => {
    const { tasks, store } = tasksWith();
    await store.create(record({ owner: tasks.ownerOf(ctx('alice')) }), taskLimits({ maxPerCaller: 10 }));
    await expect(tasks.find('task-1', ctx('alice'))).resolves.toMatchObject({ taskId: 'task-1' });
    for (const [id, who] of [
      ['task-1', ctx('bob')],
      ['task-1', ctx()],
      ['no-such-task', ctx('alice')],
      ['x'.repeat(200), ctx('alice')],
      [42, ctx('alice')],
    ] as const) {
      await expect(tasks.find(id, who)).rejects.toBeInstanceOf(McpTaskNotFoundException);
    }
  });

  it("keeps the tool's scopes with the task and checks them on every lookup with the caller's token", async () => {
    const { tasks } = tasksWith();
    const created = (await tasks.start(
      { kind: 'task' },
      ctx('alice', ['notes:write']),
      async () => ({ content: [{ type: 'text', text: 'secret' }] }),
      ['notes:write'],
    )) as { taskId: string };
    await expect(tasks.find(created.taskId, ctx('alice', ['notes:write']))).resolves.toMatchObject({
      requiredScopes: ['notes:write'],
    });
    // The same principal with a narrower token: refused as a call of the tool would be.
    await expect(tasks.find(created.taskId, ctx('alice', ['notes:read']))).rejects.toBeInstanceOf(
      McpInsufficientScopeException,
    );
    // Another principal still learns nothing.
    await expect(tasks.find(created.taskId, ctx('bob', ['notes:write']))).rejects.toBeInstanceOf(
      McpTaskNotFoundException,
    );
  });

  it("makes a new task's id with the store's newTaskId when it has one: from a random id and the task's caller", async () => {
    class PlacingStore extends InMemoryTaskStore {
      readonly asked: Array<[string, string | undefined]> = [];
      newTaskId(random: string, caller: string | undefined): string {
        this.asked.push([random, caller]);
        return `s7.${random}`;
      }
    }
    const store = new PlacingStore();
    const { tasks } = tasksWith(store);
    const created = (await tasks.start({ kind: 'task' }, ctx('alice'), async () => ({ content: [] }))) as {
      taskId: string;
    };
    expect(store.asked).toHaveLength(1);
    const [[random, caller]] = store.asked;
    expect(random).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(caller).toMatch(/^p:/);
    expect(created.taskId).toBe(`s7.${random}`);
    await expect(tasks.find(created.taskId, ctx('alice'))).resolves.toMatchObject({ taskId: created.taskId, caller });
  });

  it('polls of a completed task read its status from the store each time, and its result once', async () => {
    const store = new InMemoryTaskStore();
    const { tasks } = tasksWith(store);
    const created = (await tasks.start({ kind: 'task' }, ctx('alice'), async () => ({
      content: [{ type: 'text', text: 'done' }],
    }))) as { taskId: string };
    await until(async () => (await store.get(created.taskId))?.status === 'completed');
    // A store that leaves the result out when asked to, as a shared one does.
    const reads: unknown[] = [];
    const get = store.get.bind(store);
    store.get = async (taskId, options) => {
      reads.push(options?.result ?? true);
      const record = await get(taskId);
      if (!record || options?.result !== false) return record;
      const { result: _left, ...status } = record;
      return status;
    };
    for (let n = 0; n < 3; n++) {
      expect(await tasks.find(created.taskId, ctx('alice'))).toMatchObject({ result: { content: [{ text: 'done' }] } });
    }
    expect(reads).toEqual([false, true, false, false]);
    // Every read still checks who asks.
    await expect(tasks.find(created.taskId, ctx('bob'))).rejects.toBeInstanceOf(McpTaskNotFoundException);
  });

  it("answers polls of a completed task with its result serialized once (a poll's cost does not grow with it)", async () => {
    const store = new InMemoryTaskStore();
    const { tasks } = tasksWith(store);
    const created = (await tasks.start({ kind: 'task' }, ctx('alice'), async () => ({
      content: [{ type: 'text', text: 'x'.repeat(100_000) }],
    }))) as { taskId: string };
    await until(async () => (await store.get(created.taskId))?.status === 'completed');
    const answers = [];
    for (let n = 0; n < 3; n++) answers.push(detailedTask(await tasks.find(created.taskId, ctx('alice'))).result);
    expect(answers[0]).toBeInstanceOf(RawJson);
    expect(answers[1]).toBe(answers[0]);
    expect(answers[2]).toBe(answers[0]);
    const wire = JSON.parse(stringifyJson({ result: answers[2] })) as { result: Record<string, unknown> };
    expect(wire.result).toEqual({ content: [{ type: 'text', text: 'x'.repeat(100_000) }], resultType: 'complete' });
  });

  it('a read that finds a task just failed as orphaned tells the waiters once; an old or ordinary failure does not', async () => {
    const { tasks, events, store } = tasksWith();
    const changed = jest.spyOn(events, 'changed');
    const orphaned = {
      status: 'failed' as const,
      statusMessage: ORPHANED_TASK.statusMessage,
      error: ORPHANED_TASK.error,
    };
    await store.create(record({ taskId: 'fresh' }), taskLimits({ maxPerCaller: 10 }));
    await store.settle('fresh', orphaned, Date.now());
    await store.create(record({ taskId: 'old' }), taskLimits({ maxPerCaller: 10 }));
    await store.settle('old', orphaned, Date.now() - 60_000);
    await store.create(record({ taskId: 'plain' }), taskLimits({ maxPerCaller: 10 }));
    await store.settle(
      'plain',
      { status: 'failed', statusMessage: 'boom', error: { code: 1, message: 'x' } },
      Date.now(),
    );
    for (const taskId of ['fresh', 'fresh', 'old', 'plain']) await tasks.find(taskId, ctx());
    expect(changed.mock.calls).toEqual([['fresh']]);
  });

  it('refuses a task past maxTasksPerInstance with 503, and any task once shutting down', async () => {
    const { tasks } = tasksWith(undefined, { tasks: { maxPerInstance: 1, shutdownGraceMs: 0 } });
    let finish!: () => void;
    const running = tasks.start({ kind: 'task' }, ctx(undefined, [], 'legacy'), async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      return { content: [] };
    });
    await expect(running).resolves.toMatchObject({ task: { status: 'working' } });
    await expect(
      tasks.start({ kind: 'task' }, ctx(undefined, [], 'legacy'), async () => ({ content: [] })),
    ).rejects.toMatchObject({ httpStatus: 503, code: -32000, data: { limit: 1 } });
    await tasks.beforeApplicationShutdown();
    expect(tasks.runningCount).toBe(1);
    finish();
    await expect(
      tasks.start({ kind: 'task' }, ctx(undefined, [], 'legacy'), async () => ({ content: [] })),
    ).rejects.toMatchObject({ httpStatus: 503, detail: expect.stringContaining('shutting down') });
  });

  it('a graceful shutdown fails the tasks whose handlers outlive the grace', async () => {
    const { tasks, store } = tasksWith(undefined, { tasks: { shutdownGraceMs: 20 } });
    const created = (await tasks.start(
      { kind: 'task' },
      ctx(undefined, [], 'legacy'),
      () => new Promise<never>(() => undefined),
    )) as { task: { taskId: string } };
    await tasks.beforeApplicationShutdown();
    expect(await store.get(created.task.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'The server shut down before the task finished',
    });
  });
});
