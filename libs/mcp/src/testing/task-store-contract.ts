/**
 * The contract of a backend's task store (`McpBackendParts.tasks`), run by
 * `describeBackendContract` for every backend: what any instance answers for any task, the
 * budget per caller, terminal statuses that never change, input requests and answers, time to
 * live, listing, and (shared backends) orphaned tasks. Written with Jest's globals.
 */
import { randomBytes } from 'node:crypto';
import { McpBackendUnavailableError, type McpBackendParts } from '../backend/mcp-backend.interface.js';
import {
  McpTaskCursorError,
  ORPHANED_TASK,
  RESULT_NOT_KEPT,
  type McpTaskLimits,
  type McpTaskRecord,
  type McpTaskStore,
} from '../extensions/tasks/store/mcp-task.store.js';
import type { BackendDeployment, BackendUnderTest } from './backend-deployment.js';
import { eventually } from './eventually.js';

const newTaskId = (): string => randomBytes(18).toString('base64url');

/**
 * A task record as the core creates it; with `store`, its id made as the core makes it for that
 * store (`McpTaskStore.newTaskId`, from the record's caller).
 */
export function taskRecord(
  overrides: Partial<McpTaskRecord> = {},
  store?: Pick<McpTaskStore, 'newTaskId'>,
): McpTaskRecord {
  const now = Date.now();
  const caller = 'caller' in overrides ? overrides.caller : 'p:caller';
  const random = newTaskId();
  return {
    taskId: store?.newTaskId?.(random, caller) ?? random,
    owner: 'm:owner',
    ...(caller !== undefined ? { caller } : {}),
    instanceId: 'instance',
    era: 'modern',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    ...overrides,
  };
}

/** Limits for `McpTaskStore.create`: roomy, but for what a test narrows. */
export function taskLimits(overrides: Partial<McpTaskLimits> = {}): McpTaskLimits {
  return {
    maxPerCaller: 100,
    maxBytesPerCaller: 16 * 1024 * 1024,
    maxStored: 10_000,
    maxStoredBytes: 256 * 1024 * 1024,
    resultTtlMs: 3_600_000,
    ...overrides,
  };
}

/** The task store of an instance: every backend the contract checks has one. */
function tasksOf(parts: McpBackendParts): McpTaskStore {
  expect(parts.tasks).toBeDefined();
  return parts.tasks!;
}

/** A record owned by a live instance of `parts` (a shared store fails the tasks of any other). */
const liveRecord = (parts: McpBackendParts, overrides: Partial<McpTaskRecord> = {}): McpTaskRecord =>
  taskRecord({ instanceId: parts.messaging?.instanceId ?? 'instance', ...overrides }, parts.tasks);

/** Declares the task store's part of the contract (inside `describeBackendContract`). */
export function describeTaskStoreContract(subject: BackendUnderTest, deploy: () => Promise<BackendDeployment>): void {
  describe('tasks', () => {
    const single = async () => {
      const parts = await (await deploy()).instance();
      return { parts, tasks: tasksOf(parts) };
    };

    it('gives back what was created, every field; an unknown id is undefined', async () => {
      const { parts, tasks } = await single();
      const record = liveRecord(parts, {
        era: 'legacy',
        sessionId: 's-1',
        statusMessage: 'starting',
        requiredScopes: ['notes:write', 'notes:read'],
      });
      expect(await tasks.create(record, taskLimits({ maxPerCaller: 10 }))).toBe(true);
      expect(await tasks.get(record.taskId)).toEqual(record);
      expect(await tasks.get(newTaskId())).toBeUndefined();
    });

    it('counts the tasks of a caller against its budget; one that ended makes room for a new one', async () => {
      const { parts, tasks } = await single();
      const [first, second, third] = [1, 2, 3].map(() => liveRecord(parts, { caller: 'p:busy' }));
      expect(await tasks.create(first, taskLimits({ maxPerCaller: 2 }))).toBe(true);
      expect(await tasks.create(second, taskLimits({ maxPerCaller: 2 }))).toBe(true);
      expect(await tasks.create(third, taskLimits({ maxPerCaller: 2 }))).toBe(false);
      expect(await tasks.get(third.taskId)).toBeUndefined();
      // Another caller, and tasks counted for nobody, have their own room.
      expect(await tasks.create(liveRecord(parts, { caller: 'p:other' }), taskLimits({ maxPerCaller: 2 }))).toBe(true);
      expect(await tasks.create(liveRecord(parts, { caller: undefined }), taskLimits({ maxPerCaller: 2 }))).toBe(true);
      expect(await tasks.settle(first.taskId, { status: 'completed', result: { content: [] } }, Date.now())).toBe(
        'working',
      );
      expect(await tasks.create(third, taskLimits({ maxPerCaller: 2 }))).toBe(true);
    });

    it("counts ended tasks too: a new task removes the caller's oldest ended one, never another caller's", async () => {
      const { parts, tasks } = await single();
      const limits = taskLimits({ maxPerCaller: 2 });
      const done = { status: 'completed' as const, result: { content: [] } };
      const [first, second, third, fourth] = [1, 2, 3, 4].map(() => liveRecord(parts, { caller: 'p:filler' }));
      const other = liveRecord(parts, { caller: 'p:other' });
      expect(await tasks.create(other, limits)).toBe(true);
      await tasks.settle(other.taskId, done, Date.now());
      expect(await tasks.create(first, limits)).toBe(true);
      expect(await tasks.create(second, limits)).toBe(true);
      await tasks.settle(second.taskId, done, Date.now());
      await tasks.settle(first.taskId, done, Date.now());
      // Both ended: the one that ended first goes.
      expect(await tasks.create(third, limits)).toBe(true);
      expect(await tasks.get(second.taskId)).toBeUndefined();
      expect(await tasks.get(first.taskId)).toMatchObject({ status: 'completed' });
      expect(await tasks.create(fourth, limits)).toBe(true);
      expect(await tasks.get(first.taskId)).toBeUndefined();
      // Nothing of its own ended: refused; the other caller's ended task is never taken.
      expect(await tasks.create(liveRecord(parts, { caller: 'p:filler' }), limits)).toBe(false);
      expect(await tasks.get(other.taskId)).toMatchObject({ status: 'completed' });
      expect((await tasks.get(third.taskId))?.status).toBe('working');
    });

    it("bounds a caller's bytes: a result that does not fit removes its oldest ended task, else is not kept", async () => {
      const { parts, tasks } = await single();
      const limits = taskLimits({ maxBytesPerCaller: 6_000 });
      const sized = (bytes: number) => ({
        status: 'completed' as const,
        result: { content: [{ type: 'text', text: 'x'.repeat(bytes) }] },
      });
      const [first, second, third] = [1, 2, 3].map(() => liveRecord(parts, { caller: 'p:bulky' }));
      const other = liveRecord(parts, { caller: 'p:light' });
      for (const record of [other, first, second, third]) expect(await tasks.create(record, limits)).toBe(true);
      await tasks.settle(other.taskId, sized(3_000), Date.now());
      await tasks.settle(first.taskId, sized(3_000), Date.now());
      expect((await tasks.get(first.taskId))?.result).toBeDefined();
      // Does not fit beside the first: the first (ended) goes.
      expect(await tasks.settle(second.taskId, sized(3_000), Date.now())).toBe('working');
      expect(await tasks.get(first.taskId)).toBeUndefined();
      expect((await tasks.get(second.taskId))?.result).toEqual(sized(3_000).result);
      // Larger than the whole budget: the task fails, saying so, and nothing more is removed.
      expect(await tasks.settle(third.taskId, sized(8_000), Date.now())).toBe('working');
      const refused = await tasks.get(third.taskId);
      expect(refused).toMatchObject({ status: 'failed', statusMessage: RESULT_NOT_KEPT, error: { code: -32603 } });
      expect(refused?.result).toBeUndefined();
      // A result that could never fit removes nothing of the caller's.
      expect((await tasks.get(second.taskId))?.result).toEqual(sized(3_000).result);
      expect(await tasks.get(other.taskId)).toMatchObject({ status: 'completed' });
    });

    it('bounds the store as a whole: past it a caller can only make room with its own ended tasks', async () => {
      const { parts, tasks } = await single();
      const limits = taskLimits({ maxPerCaller: 2, maxStored: 3 });
      const busy = [1, 2].map(() => liveRecord(parts, { caller: 'p:busy' }));
      const mine = liveRecord(parts, { caller: 'p:late' });
      for (const record of [...busy, mine]) expect(await tasks.create(record, limits)).toBe(true);
      await expect(tasks.create(liveRecord(parts, { caller: 'p:late' }), limits)).rejects.toBeInstanceOf(
        McpBackendUnavailableError,
      );
      await tasks.settle(mine.taskId, { status: 'completed', result: { content: [] } }, Date.now());
      expect(await tasks.create(liveRecord(parts, { caller: 'p:late' }), limits)).toBe(true);
      expect(await tasks.get(mine.taskId)).toBeUndefined();
      for (const record of busy) expect((await tasks.get(record.taskId))?.status).toBe('working');
    });

    it('keeps an ended task only resultTtlMs more (its ttlMs says so), a running one its whole time to live', async () => {
      const { parts, tasks } = await single();
      // Long enough that a slow store (the contract runs behind added latency) still reads the
      // ended task before it goes; short enough to see it go.
      const limits = taskLimits({ resultTtlMs: 1_500 });
      const [ended, running] = [liveRecord(parts, { ttlMs: 60_000 }), liveRecord(parts, { ttlMs: 60_000 })];
      for (const record of [ended, running]) expect(await tasks.create(record, limits)).toBe(true);
      const now = Date.now();
      await tasks.settle(ended.taskId, { status: 'completed', result: { content: [] } }, now);
      const settled = await tasks.get(ended.taskId);
      expect(settled!.ttlMs).toBeLessThanOrEqual(now + 1_500 - ended.createdAt);
      await eventually(async () => (await tasks.get(ended.taskId)) === undefined, 'the ended task gone');
      expect((await tasks.get(running.taskId))?.status).toBe('working');
    });

    it('never changes a terminal status: later settles, messages, asks and answers change nothing', async () => {
      const { parts, tasks } = await single();
      const record = liveRecord(parts);
      await tasks.create(record, taskLimits({ maxPerCaller: 10 }));
      const result = { content: [{ type: 'text', text: 'done' }], structuredContent: { list: [], map: {} } };
      expect(await tasks.settle(record.taskId, { status: 'completed', result, statusMessage: 'ok' }, Date.now())).toBe(
        'working',
      );
      const settled = await tasks.get(record.taskId);
      expect(settled).toMatchObject({ status: 'completed', statusMessage: 'ok', result });
      const error = { code: -32603, message: 'Internal error' };
      expect(await tasks.settle(record.taskId, { status: 'failed', error }, Date.now())).toBe('completed');
      expect(await tasks.setStatusMessage(record.taskId, 'late', Date.now())).toBe(false);
      expect(await tasks.ask(record.taskId, { k: { method: 'roots/list', params: {} } }, Date.now())).toBe(false);
      expect(await tasks.answer(record.taskId, { k: { roots: [] } }, Date.now())).toEqual([]);
      expect(await tasks.withdraw(record.taskId, ['k'], Date.now())).toBe(false);
      expect(await tasks.get(record.taskId)).toEqual(settled);
      expect(await tasks.settle(newTaskId(), { status: 'cancelled' }, Date.now())).toBeUndefined();
    });

    it('sets the status message of a running task and its last update', async () => {
      const { parts, tasks } = await single();
      const record = liveRecord(parts, { lastUpdatedAt: Date.now() - 1_000 });
      await tasks.create(record, taskLimits({ maxPerCaller: 10 }));
      const now = Date.now();
      expect(await tasks.setStatusMessage(record.taskId, 'step 2 of 5', now)).toBe(true);
      expect(await tasks.get(record.taskId)).toMatchObject({ statusMessage: 'step 2 of 5', lastUpdatedAt: now });
    });

    it('input: asks make it input_required; answers to outstanding keys are taken once; none left is working', async () => {
      const { parts, tasks } = await single();
      const record = liveRecord(parts);
      await tasks.create(record, taskLimits({ maxPerCaller: 10 }));
      // Params go back exactly as written: empty lists stay lists, empty objects objects.
      const first = {
        method: 'elicitation/create' as const,
        params: { message: 'a?', requestedSchema: { required: [] } },
      };
      const second = { method: 'roots/list' as const, params: {} };
      expect(await tasks.ask(record.taskId, { first, second }, Date.now())).toBe(true);
      expect(await tasks.get(record.taskId)).toMatchObject({
        status: 'input_required',
        inputRequests: { first, second },
      });
      expect(
        await tasks.answer(record.taskId, { first: { action: 'accept', content: {} }, stray: {} }, Date.now()),
      ).toEqual(['first']);
      expect(await tasks.answer(record.taskId, { first: { action: 'decline' } }, Date.now())).toEqual([]);
      const waiting = await tasks.get(record.taskId);
      expect(waiting).toMatchObject({ status: 'input_required', inputRequests: { second } });
      expect(await tasks.takeAnswers(record.taskId)).toEqual({ first: { action: 'accept', content: {} } });
      expect(await tasks.takeAnswers(record.taskId)).toEqual({});
      expect(await tasks.answer(record.taskId, { second: { roots: [] } }, Date.now())).toEqual(['second']);
      const working = await tasks.get(record.taskId);
      expect(working?.status).toBe('working');
      expect(working?.inputRequests).toBeUndefined();
      expect(await tasks.takeAnswers(record.taskId)).toEqual({ second: { roots: [] } });
      // Withdrawn requests (answered elsewhere) leave too.
      expect(await tasks.ask(record.taskId, { third: second }, Date.now())).toBe(true);
      expect(await tasks.withdraw(record.taskId, ['third'], Date.now())).toBe(true);
      expect((await tasks.get(record.taskId))?.status).toBe('working');
    });

    it('forgets a task once its time to live lapsed, and frees its place in the budget', async () => {
      const { parts, tasks } = await single();
      const short = liveRecord(parts, { ttlMs: 50, caller: 'p:brief' });
      expect(await tasks.create(short, taskLimits({ maxPerCaller: 1 }))).toBe(true);
      await eventually(async () => (await tasks.get(short.taskId)) === undefined, 'the task gone after its ttl');
      expect(await tasks.create(liveRecord(parts, { caller: 'p:brief' }), taskLimits({ maxPerCaller: 1 }))).toBe(true);
    });

    it("lists one owner's tasks oldest first, a page at a time; an unknown cursor is refused", async () => {
      const { parts, tasks } = await single();
      const base = Date.now();
      const mine = [0, 1, 2].map((n) => liveRecord(parts, { owner: 'l:me:s', createdAt: base + n }));
      for (const record of mine) await tasks.create(record, taskLimits({ maxPerCaller: 10 }));
      await tasks.create(liveRecord(parts, { owner: 'l:someone-else:s' }), taskLimits({ maxPerCaller: 10 }));
      const first = await tasks.list('l:me:s', undefined, 2);
      expect(first.records.map((record) => record.taskId)).toEqual([mine[0].taskId, mine[1].taskId]);
      expect(first.nextCursor).toBeDefined();
      const second = await tasks.list('l:me:s', first.nextCursor, 2);
      expect(second.records.map((record) => record.taskId)).toEqual([mine[2].taskId]);
      expect(second.nextCursor).toBeUndefined();
      expect((await tasks.list('l:nobody', undefined, 2)).records).toEqual([]);
      await expect(tasks.list('l:me:s', 'not-a-cursor', 2)).rejects.toBeInstanceOf(McpTaskCursorError);
    });

    it('settles what still runs on one instance (an earlier life of its id), and nothing else', async () => {
      const { parts, tasks } = await single();
      const me = parts.messaging?.instanceId ?? 'instance';
      const [running, ended] = [liveRecord(parts), liveRecord(parts)];
      await tasks.create(running, taskLimits({ maxPerCaller: 10 }));
      await tasks.create(ended, taskLimits({ maxPerCaller: 10 }));
      await tasks.settle(ended.taskId, { status: 'completed', result: { content: [] } }, Date.now());
      const settlement = {
        status: 'failed' as const,
        statusMessage: 'restarted',
        error: { code: -32603, message: 'x' },
      };
      expect(await tasks.settleInstance(me, settlement, Date.now())).toEqual([running.taskId]);
      expect(await tasks.get(running.taskId)).toMatchObject({ status: 'failed', statusMessage: 'restarted' });
      expect((await tasks.get(ended.taskId))?.status).toBe('completed');
    });

    if (!subject.shared) return;

    describe('several instances', () => {
      it('any instance answers for any task, and sees the changes of every other', async () => {
        const world = await deploy();
        const [a, b] = [await world.instance(), await world.instance()];
        const record = liveRecord(a);
        expect(await tasksOf(a).create(record, taskLimits({ maxPerCaller: 10 }))).toBe(true);
        expect(await tasksOf(b).get(record.taskId)).toEqual(record);
        expect(await tasksOf(b).settle(record.taskId, { status: 'cancelled' }, Date.now())).toBe('working');
        expect((await tasksOf(a).get(record.taskId))?.status).toBe('cancelled');
      });

      it('one budget per caller across instances: of concurrent creates, exactly the budget wins', async () => {
        const world = await deploy();
        const [a, b] = [await world.instance(), await world.instance()];
        const records = Array.from({ length: 8 }, () => liveRecord(a, { caller: 'p:racer' }));
        const outcomes = await Promise.all(
          records.map((record, i) => tasksOf(i % 2 ? a : b).create(record, taskLimits({ maxPerCaller: 3 }))),
        );
        expect(outcomes.filter(Boolean)).toHaveLength(3);
      });

      it('fails the tasks of instances that are gone when looking for orphans', async () => {
        const world = await deploy();
        const a = await world.instance();
        const tasks = tasksOf(a);
        const [first, second] = [
          taskRecord({ instanceId: 'gone-1', caller: 'p:first' }, tasks),
          taskRecord({ instanceId: 'gone-2', caller: 'p:second' }, tasks),
        ];
        const alive = liveRecord(a);
        for (const record of [first, second, alive])
          expect(await tasks.create(record, taskLimits({ maxPerCaller: 10 }))).toBe(true);
        expect(tasks.reapOrphans).toBeDefined();
        expect((await tasks.reapOrphans!(Date.now())).sort()).toEqual([first.taskId, second.taskId].sort());
        for (const record of [first, second]) {
          expect(await tasks.get(record.taskId)).toMatchObject({
            status: ORPHANED_TASK.status,
            statusMessage: ORPHANED_TASK.statusMessage,
            error: ORPHANED_TASK.error,
          });
        }
        expect((await tasks.get(alive.taskId))?.status).toBe('working');
        expect(await tasks.reapOrphans!(Date.now())).toEqual([]);
      });
    });
  });
}
