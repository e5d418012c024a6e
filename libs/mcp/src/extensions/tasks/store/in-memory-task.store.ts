import { McpBackendUnavailableError } from '../../../errors/mcp-backend-unavailable.error.js';
import {
  isTerminalTaskStatus,
  McpTaskCursorError,
  RESULT_NOT_KEPT,
  type McpTaskLimits,
  type McpTaskInputRequest,
  type McpTaskPage,
  type McpTaskReadOptions,
  type McpTaskRecord,
  type McpTaskSettlement,
  type McpTaskStatus,
  type McpTaskStore,
} from './mcp-task.store.js';

/** Expired records dropped, at most, by one `create` (the oldest first): cheap, and enough to keep up. */
const SWEEP_PER_CREATE = 16;

interface Entry {
  record: McpTaskRecord;
  /** Input keys used so far in this task: a key is never reused. */
  readonly keys: Set<string>;
  answers: Record<string, unknown>;
  expiresAt: number;
  /** Bytes of JSON it counts for: its record, then its result or error too. */
  bytes: number;
  readonly limits: McpTaskLimits;
}

/** What one caller has stored. */
interface Usage {
  /** Its tasks, oldest first. */
  readonly tasks: Set<string>;
  /** Those that ended, the first ended first. */
  readonly ended: Set<string>;
  bytes: number;
}

/**
 * The tasks of one process. Records are replaced, never changed in place, so a record handed out
 * stays as it was. Bounded by the `McpTaskLimits` each `create` brings (tasks and bytes per
 * caller and in all), and by `capacity`: past the global bounds a further `create` is refused as
 * a busy backend (503) until some expire. An expired task is dropped when it is next touched,
 * and the oldest ones on every `create`.
 */
export class InMemoryTaskStore implements McpTaskStore {
  private readonly tasks = new Map<string, Entry>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly byCaller = new Map<string, Usage>();
  private readonly byInstance = new Map<string, Set<string>>();
  private storedBytes = 0;

  constructor(
    private readonly capacity = Number.POSITIVE_INFINITY,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Tasks held, expired ones not yet dropped included (for tests). */
  get size(): number {
    return this.tasks.size;
  }

  /** Bytes of JSON held, expired tasks not yet dropped included (for tests). */
  get bytes(): number {
    return this.storedBytes;
  }

  async create(record: McpTaskRecord, limits: McpTaskLimits): Promise<boolean> {
    const now = this.clock();
    const maxStored = Math.min(this.capacity, limits.maxStored);
    const bytes = jsonBytes(record);
    this.sweep(now, SWEEP_PER_CREATE);
    if (this.tasks.size >= maxStored || this.storedBytes + bytes > limits.maxStoredBytes) this.sweep(now, Infinity);
    const usage = record.caller !== undefined ? this.usageOf(record.caller, now) : undefined;
    if (usage) {
      const fits = () => usage.tasks.size < limits.maxPerCaller && usage.bytes + bytes <= limits.maxBytesPerCaller;
      if (!this.evictUntil(usage, fits)) {
        this.forgetIfEmpty(record.caller!, usage);
        return false;
      }
    }
    const globalFits = () => this.tasks.size < maxStored && this.storedBytes + bytes <= limits.maxStoredBytes;
    if (!(usage ? this.evictUntil(usage, globalFits) : globalFits())) {
      if (usage) this.forgetIfEmpty(record.caller!, usage);
      throw new McpBackendUnavailableError(
        `The task store is full (${this.tasks.size} tasks, ${this.storedBytes} bytes): retry when some have expired`,
      );
    }
    this.tasks.set(record.taskId, {
      record,
      keys: new Set(),
      answers: {},
      expiresAt: record.createdAt + record.ttlMs,
      bytes,
      limits,
    });
    this.storedBytes += bytes;
    add(this.byOwner, record.owner, record.taskId);
    add(this.byInstance, record.instanceId, record.taskId);
    if (usage) {
      usage.tasks.add(record.taskId);
      usage.bytes += bytes;
    }
    return true;
  }

  /** The record as held (a result costs nothing to hand out here, so it is always there). */
  async get(taskId: string, _options?: McpTaskReadOptions): Promise<McpTaskRecord | undefined> {
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
    const kept = this.fitted(entry, settlement);
    const { inputRequests: _outstanding, ...rest } = entry.record;
    entry.expiresAt = Math.min(entry.expiresAt, now + entry.limits.resultTtlMs);
    entry.record = {
      ...rest,
      status: kept.status,
      lastUpdatedAt: now,
      ttlMs: entry.expiresAt - entry.record.createdAt,
      ...(kept.statusMessage !== undefined ? { statusMessage: kept.statusMessage } : {}),
      ...(kept.result !== undefined ? { result: kept.result } : {}),
      ...(kept.error !== undefined ? { error: kept.error } : {}),
    };
    const added = settlementBytes(kept);
    entry.bytes += added;
    this.storedBytes += added;
    const usage = entry.record.caller !== undefined ? this.byCaller.get(entry.record.caller) : undefined;
    if (usage) {
      usage.bytes += added;
      usage.ended.add(taskId);
    }
    entry.answers = {};
    remove(this.byInstance, entry.record.instanceId, taskId);
    return before;
  }

  /**
   * The settlement, when its result fits the task's limits once the oldest ended tasks of its
   * caller made room; else the failure that says the result was not kept.
   */
  private fitted(entry: Entry, settlement: McpTaskSettlement): McpTaskSettlement {
    const bytes = settlementBytes(settlement);
    const { limits } = entry;
    // Larger than a whole budget: nothing the caller holds is removed for a result that cannot fit.
    if (bytes > limits.maxBytesPerCaller || bytes > limits.maxStoredBytes) return resultNotKept(bytes);
    const usage = entry.record.caller !== undefined ? this.byCaller.get(entry.record.caller) : undefined;
    const fits = () =>
      this.storedBytes + bytes <= limits.maxStoredBytes && (!usage || usage.bytes + bytes <= limits.maxBytesPerCaller);
    if (usage ? this.evictUntil(usage, fits) : fits()) return settlement;
    return resultNotKept(bytes);
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
    const entry = this.tasks.get(record.taskId);
    if (!entry) return;
    this.tasks.delete(record.taskId);
    this.storedBytes -= entry.bytes;
    remove(this.byOwner, record.owner, record.taskId);
    remove(this.byInstance, record.instanceId, record.taskId);
    const usage = record.caller !== undefined ? this.byCaller.get(record.caller) : undefined;
    if (!usage) return;
    usage.tasks.delete(record.taskId);
    usage.ended.delete(record.taskId);
    usage.bytes -= entry.bytes;
    this.forgetIfEmpty(record.caller!, usage);
  }

  private forgetIfEmpty(caller: string, usage: Usage): void {
    if (usage.tasks.size === 0 && this.byCaller.get(caller) === usage) this.byCaller.delete(caller);
  }

  /** The usage of a caller, its expired tasks dropped first (at most its budget of them). */
  private usageOf(caller: string, now: number): Usage {
    let usage = this.byCaller.get(caller);
    if (usage) for (const taskId of [...usage.tasks]) this.live(taskId, now);
    usage = this.byCaller.get(caller);
    if (!usage) this.byCaller.set(caller, (usage = { tasks: new Set(), ended: new Set(), bytes: 0 }));
    return usage;
  }

  /** Removes the oldest ended tasks of one caller until `fits()`; false when they run out first. */
  private evictUntil(usage: Usage, fits: () => boolean): boolean {
    while (!fits()) {
      const oldest = usage.ended.values().next();
      if (oldest.done) return false;
      const entry = this.tasks.get(oldest.value);
      if (entry) this.drop(entry.record);
      else usage.ended.delete(oldest.value);
    }
    return true;
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

/** Bytes of the JSON of a value (what a shared store would hold for it). */
function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
}

/** Bytes an ending adds to its task: its result, its error and its message. */
export function settlementBytes(settlement: McpTaskSettlement): number {
  return jsonBytes(settlement.result) + jsonBytes(settlement.error) + jsonBytes(settlement.statusMessage);
}

/** How a task ends whose result (of `bytes`) does not fit its caller's task storage. */
export function resultNotKept(bytes: number): McpTaskSettlement {
  return {
    status: 'failed',
    statusMessage: RESULT_NOT_KEPT,
    error: { code: -32603, message: 'Internal error', data: { detail: `${RESULT_NOT_KEPT} (${bytes} bytes)` } },
  };
}
