/**
 * A backend wrapper for tests: it slows down chosen calls, holds them at gates, and makes them
 * fail as an unreachable backend would (`McpBackendUnavailableError`). Races are then provoked
 * deterministically (a gate holds a call until the racing operation has finished) and failure
 * paths are reached without a real outage.
 */
import {
  McpBackendUnavailableError,
  type McpBackend,
  type McpBackendContext,
  type McpBackendParts,
} from '../backend/mcp-backend.interface.js';

/**
 * The calls of each seam that may answer later, which the wrapper can slow down, hold or fail
 * (`sessions.access` may answer at once too: wrapped, it answers in a promise).
 */
const ASYNC_CALLS = {
  sessions: ['create', 'access', 'update', 'touch', 'end', 'expireIdle', 'count'],
  subscriptions: ['subscribe', 'unsubscribe', 'subscribersOf', 'subscriptionsOf', 'count'],
  fanout: ['resourceUpdated', 'listChanged'],
  liveStreams: ['attach', 'drain'],
  postStreams: ['resume', 'drain'],
  rateWindows: ['hit'],
  requestStateNonces: ['consume'],
  tasks: [
    'create',
    'get',
    'setStatusMessage',
    'ask',
    'answer',
    'takeAnswers',
    'withdraw',
    'settle',
    'list',
    'settleInstance',
    'reapOrphans',
  ],
  skills: ['put', 'remove', 'versions', 'get'],
} as const;

type Part = keyof typeof ASYNC_CALLS;
/** A call's name: `'<seam>.<method>'`, such as `'subscriptions.subscribe'` or `'liveStreams.attach'`. */
export type FaultyCall = { [P in Part]: `${P}.${(typeof ASYNC_CALLS)[P][number]}` }[Part];

/** A call held until the test releases it. */
export interface Gate {
  /** Resolves when a call reached the gate (it is now held). */
  readonly reached: Promise<void>;
  /** Lets the held call (and any later one) through. */
  release(): void;
}

/** What to do to the calls: latency for all, gates and failures by name. */
export class FaultInjector {
  /** Added before every wrapped call (a slow network), in milliseconds. */
  latencyMs = 0;
  private readonly failing = new Set<string>();
  private readonly gates = new Map<string, { arrive: () => void; opened: Promise<void> }>();
  /** Calls made, by name, in order (for assertions on what the core asked). */
  readonly calls: string[] = [];

  /** Makes these calls reject with `McpBackendUnavailableError` until `heal`. */
  fail(...calls: FaultyCall[]): this {
    for (const call of calls) this.failing.add(call);
    return this;
  }

  /** Lets these calls (all, without arguments) through again. */
  heal(...calls: FaultyCall[]): this {
    if (calls.length === 0) this.failing.clear();
    for (const call of calls) this.failing.delete(call);
    return this;
  }

  /** Holds the next call of `call` (and every later one) until the gate is released. */
  gate(call: FaultyCall): Gate {
    let arrive!: () => void;
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    let release!: () => void;
    const opened = new Promise<void>((resolve) => (release = resolve));
    this.gates.set(call, { arrive, opened });
    return {
      reached,
      release: () => {
        this.gates.delete(call);
        release();
      },
    };
  }

  /** Runs before every wrapped call: records it, waits at its gate, sleeps, fails if told. */
  async before(call: string): Promise<void> {
    this.calls.push(call);
    const gate = this.gates.get(call);
    if (gate) {
      gate.arrive();
      await gate.opened;
    }
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    if (this.failing.has(call)) throw new McpBackendUnavailableError(`injected failure of ${call}`);
  }
}

/**
 * Wraps another backend: every async call of each of its seams goes through a `FaultInjector`
 * first, named after the seam (a backend whose fan-out and live streams are one object still
 * has `fanout.*` and `liveStreams.*` calls). Synchronous calls (`holds`, `detach`, `open`,
 * `onEnded`, ...) pass through untouched.
 */
export class FaultyMcpBackend implements McpBackend {
  constructor(
    private readonly inner: McpBackend,
    readonly faults: FaultInjector = new FaultInjector(),
  ) {}

  async connect(context: McpBackendContext): Promise<McpBackendParts> {
    const parts = await this.inner.connect(context);
    return {
      ...parts,
      sessions: this.wrap('sessions', parts.sessions),
      subscriptions: this.wrap('subscriptions', parts.subscriptions),
      fanout: this.wrap('fanout', parts.fanout),
      liveStreams: this.wrap('liveStreams', parts.liveStreams),
      postStreams: this.wrap('postStreams', parts.postStreams),
      rateWindows: parts.rateWindows && this.wrap('rateWindows', parts.rateWindows),
      requestStateNonces: parts.requestStateNonces && this.wrap('requestStateNonces', parts.requestStateNonces),
      tasks: parts.tasks && this.wrap('tasks', parts.tasks),
      skills: parts.skills && this.wrap('skills', parts.skills),
    };
  }

  private wrap<T extends object>(part: Part, target: T): T {
    const calls = new Set<string>(ASYNC_CALLS[part]);
    const faults = this.faults;
    return new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => unknown;
        if (typeof property !== 'string' || !calls.has(property)) return method.bind(object);
        return async (...args: unknown[]) => {
          await faults.before(`${part}.${property}`);
          return method.apply(object, args);
        };
      },
    });
  }
}
