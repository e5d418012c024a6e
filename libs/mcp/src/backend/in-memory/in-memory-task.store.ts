import { McpBackendUnavailableError } from '../mcp-backend.interface.js';
import {
  isTerminalTaskStatus,
  McpTaskCursorError,
  type McpTaskInputRequest,
  type McpTaskPage,
  type McpTaskRecord,
  type McpTaskSettlement,
  type McpTaskStatus,
  type McpTaskStore,
} from '../mcp-task.store.js';

/** Tasks kept at once by default (terminal ones stay until their time to live lapses). */
export const DEFAULT_MAX_STORED_TASKS = 10_000;

/** Expired records dropped, at most, by one `create` (the oldest first): cheap, and enough to keep up. */
const SWEEP_PER_CREATE = 16;

interface Entry {
  record: McpTaskRecord;
  /** Input keys used so far in this task: a key is never reused. */
  readonly keys: Set<string>;
  answers: Record<string, unknown>;
  readonly expiresAt: number;
}

/**
 * The tasks of one process. Records are replaced, never changed in place, so a record handed out
 * stays as it was. Bounded: with `capacity` live tasks held, a further `create` is refused as a
 * busy backend (503) until some expire; an expired task is dropped when it is next touched, and
 * the oldest ones on every `create`.
 */
export class InMemoryTaskStore implements McpTaskStore {
  private readonly tasks = new Map<string, Entry>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly activeByCaller = new Map<string, Set<string>>();
  private readonly byInstance = new Map<string, Set<string>>();

  constructor(
    private readonly capacity = DEFAULT_MAX_STORED_TASKS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Tasks held, expired ones not yet dropped included (for tests). */
  get size(): number {
    return this.tasks.size;
  }

  async create(record: McpTaskRecord, maxActivePerCaller: number): Promise<boolean> {
    const now = this.clock();
    this.sweep(now, SWEEP_PER_CREATE);
    if (this.tasks.size >= this.capacity) this.sweep(now, Infinity);
    if (this.tasks.size >= this.capacity) {
      throw new McpBackendUnavailableError(`${this.capacity} tasks are held: retry when some have expired`);
    }
    if (record.caller !== undefined) {
      const active = this.activeByCaller.get(record.caller);
      if (active) for (const taskId of active) this.live(taskId, now);
      if ((this.activeByCaller.get(record.caller)?.size ?? 0) >= maxActivePerCaller) return false;
    }
    this.tasks.set(record.taskId, {
      record,
      keys: new Set(),
      answers: {},
      expiresAt: record.createdAt + record.ttlMs,
    });
    add(this.byOwner, record.owner, record.taskId);
    add(this.byInstance, record.instanceId, record.taskId);
    if (record.caller !== undefined) add(this.activeByCaller, record.caller, record.taskId);
    return true;
  }

  async get(taskId: string): Promise<McpTaskRecord | undefined> {
    return this.live(taskId, this.clock())?.record;
  }

  async setStatusMessage(taskId: string, statusMessage: string, now: number): Promise<boolean> {
    return this.change(taskId, now, (record) => ({ ...record, statusMessage }));
  }

  async ask(taskId: string, requests: Readonly<Record<string, McpTaskInputRequest>>, now: number): Promise<boolean> {
    const entry = this.running(taskId, now);
    if (!entry) return false;
    const added = Object.entries(requests).filter(([key]) => !entry.keys.has(key));
    if (added.length === 0) return false;
    for (const [key] of added) entry.keys.add(key);
    this.replace(entry, now, {
      status: 'input_required',
      inputRequests: { ...entry.record.inputRequests, ...Object.fromEntries(added) },
    });
    return true;
  }

  async answer(taskId: string, responses: Readonly<Record<string, unknown>>, now: number): Promise<string[]> {
    const entry = this.running(taskId, now);
    const outstanding = entry?.record.inputRequests;
    if (!entry || !outstanding) return [];
    const taken = Object.keys(responses).filter((key) => Object.hasOwn(outstanding, key));
    if (taken.length === 0) return [];
    for (const key of taken) entry.answers[key] = responses[key];
    this.removeRequests(entry, taken, now);
    return taken;
  }

  async takeAnswers(taskId: string): Promise<Record<string, unknown>> {
    const entry = this.live(taskId, this.clock());
    if (!entry) return {};
    const answers = entry.answers;
    entry.answers = {};
    return answers;
  }

  async withdraw(taskId: string, keys: readonly string[], now: number): Promise<boolean> {
    const entry = this.running(taskId, now);
    if (!entry) return false;
    this.removeRequests(entry, keys, now);
    return true;
  }

  async settle(taskId: string, settlement: McpTaskSettlement, now: number): Promise<McpTaskStatus | undefined> {
    const entry = this.live(taskId, now);
    if (!entry) return undefined;
    const before = entry.record.status;
    if (isTerminalTaskStatus(before)) return before;
    const { inputRequests: _outstanding, ...rest } = entry.record;
    entry.record = {
      ...rest,
      status: settlement.status,
      lastUpdatedAt: now,
      ...(settlement.statusMessage !== undefined ? { statusMessage: settlement.statusMessage } : {}),
      ...(settlement.result !== undefined ? { result: settlement.result } : {}),
      ...(settlement.error !== undefined ? { error: settlement.error } : {}),
    };
    entry.answers = {};
    this.release(entry.record);
    return before;
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<McpTaskPage> {
    const now = this.clock();
    const ids = [...(this.byOwner.get(owner) ?? [])].filter((taskId) => this.live(taskId, now));
    let start = 0;
    if (cursor !== undefined) {
      const at = ids.indexOf(cursor);
      if (at < 0) throw new McpTaskCursorError(cursor);
      start = at + 1;
    }
    const page = ids.slice(start, start + limit);
    const records = page.map((taskId) => this.tasks.get(taskId)!.record);
    return start + limit < ids.length ? { records, nextCursor: page.at(-1) } : { records };
  }

  async settleInstance(instanceId: string, settlement: McpTaskSettlement, now: number): Promise<string[]> {
    const settled: string[] = [];
    for (const taskId of [...(this.byInstance.get(instanceId) ?? [])]) {
      const before = await this.settle(taskId, settlement, now);
      if (before !== undefined && !isTerminalTaskStatus(before)) settled.push(taskId);
    }
    return settled;
  }

  /** The entry of a task that is not terminal. */
  private running(taskId: string, now: number): Entry | undefined {
    const entry = this.live(taskId, now);
    return entry && !isTerminalTaskStatus(entry.record.status) ? entry : undefined;
  }

  private change(taskId: string, now: number, update: (record: McpTaskRecord) => McpTaskRecord): boolean {
    const entry = this.running(taskId, now);
    if (!entry) return false;
    entry.record = { ...update(entry.record), lastUpdatedAt: now };
    return true;
  }

  private removeRequests(entry: Entry, keys: readonly string[], now: number): void {
    const left = { ...entry.record.inputRequests };
    for (const key of keys) delete left[key];
    const empty = Object.keys(left).length === 0;
    const { inputRequests: _old, ...rest } = entry.record;
    const status = empty && entry.record.status === 'input_required' ? 'working' : entry.record.status;
    entry.record = { ...rest, status, lastUpdatedAt: now, ...(empty ? {} : { inputRequests: left }) };
  }

  private replace(entry: Entry, now: number, fields: Partial<McpTaskRecord>): void {
    entry.record = { ...entry.record, ...fields, lastUpdatedAt: now };
  }

  /** The entry, unless the task is unknown or expired (an expired one is dropped here). */
  private live(taskId: string, now: number): Entry | undefined {
    const entry = this.tasks.get(taskId);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry;
    this.drop(entry.record);
    return undefined;
  }

  private drop(record: McpTaskRecord): void {
    this.tasks.delete(record.taskId);
    remove(this.byOwner, record.owner, record.taskId);
    this.release(record);
  }

  /** A terminal (or dropped) task no longer counts against its caller, nor runs on its instance. */
  private release(record: McpTaskRecord): void {
    if (record.caller !== undefined) remove(this.activeByCaller, record.caller, record.taskId);
    remove(this.byInstance, record.instanceId, record.taskId);
  }

  /** Drops expired tasks, the oldest first, looking at `budget` entries at most. */
  private sweep(now: number, budget: number): void {
    let looked = 0;
    for (const entry of this.tasks.values()) {
      if (looked++ >= budget) return;
      if (entry.expiresAt <= now) this.drop(entry.record);
    }
  }
}

function add(index: Map<string, Set<string>>, key: string, taskId: string): void {
  let ids = index.get(key);
  if (!ids) index.set(key, (ids = new Set()));
  ids.add(taskId);
}

function remove(index: Map<string, Set<string>>, key: string, taskId: string): void {
  const ids = index.get(key);
  if (!ids?.delete(taskId)) return;
  if (ids.size === 0) index.delete(key);
}
