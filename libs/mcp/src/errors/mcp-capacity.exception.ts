import { JsonRpcErrorCode } from '../model/json-rpc.js';
import { RETRY_AFTER_SECONDS } from './mcp-transport.exceptions.js';
import { McpException } from './mcp.exception.js';

/**
 * Whose bound it is, which decides how the refusal is answered:
 * - `server`: the instance (or a store shared by all) is full: 503 `-32000` with `Retry-After`,
 *   since another instance, or the same one later, may have room;
 * - `caller`: this caller's budget is used: 429 `-32004` with `Retry-After`, once one of its own
 *   ends there is room;
 * - `connection`: one connection's requests in flight: `-32004` on that connection;
 * - `session`: what one session holds: `-32000` as a JSON-RPC answer, since retrying does not
 *   help until the session gives one back.
 */
type Holder = 'server' | 'caller' | 'connection' | 'session';

interface Capacity {
  readonly holder: Holder;
  readonly message: string;
  readonly detail: (limit: number) => string;
}

const CAPACITIES = {
  sessions: {
    holder: 'server',
    message: 'Too many sessions',
    detail: (limit) => `The server already holds its limit of ${limit} sessions; retry later or end unused sessions`,
  },
  sessionsPerCaller: {
    holder: 'caller',
    message: 'Too many sessions',
    detail: (limit) => `This caller already holds its limit of ${limit} sessions; end one (DELETE) or let one expire`,
  },
  streamsPerCaller: {
    holder: 'caller',
    message: 'Too many streams',
    detail: (limit) =>
      `This caller already holds its limit of ${limit} open event streams; close one before opening another`,
  },
  requestsInFlight: {
    holder: 'connection',
    message: 'Too many requests in flight',
    detail: (limit) =>
      `At most ${limit} requests may run at once on one connection; wait for answers before sending more`,
  },
  listens: {
    holder: 'server',
    message: 'Too many listens',
    detail: (limit) => `This server already holds its limit of ${limit} subscriptions/listen streams; retry later`,
  },
  listensPerCaller: {
    holder: 'caller',
    message: 'Too many listens',
    detail: (limit) =>
      `This caller already holds its limit of ${limit} subscriptions/listen streams; close one before opening another`,
  },
  subscriptions: {
    holder: 'session',
    message: 'Too many subscriptions',
    detail: (limit) =>
      `This session is already subscribed to its limit of ${limit} resources; unsubscribe from one first`,
  },
  tasksPerCaller: {
    holder: 'caller',
    message: 'Too many tasks',
    detail: (limit) =>
      `This caller already has its limit of ${limit} tasks (or their bytes) stored, all still running; wait for one to end (or cancel one) before starting another`,
  },
  taskHandlers: {
    holder: 'server',
    message: 'Too many tasks',
    detail: (limit) => `This server instance already runs its limit of ${limit} tasks; retry later`,
  },
} as const satisfies Record<string, Capacity>;

/** Which bound a client reached. */
export type McpCapacity = keyof typeof CAPACITIES;

const ANSWERS: Record<Holder, { code: number; http?: { status: number; headers: Record<string, string> } }> = {
  server: {
    code: JsonRpcErrorCode.ServerError,
    http: { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
  },
  caller: {
    code: JsonRpcErrorCode.TooManyRequests,
    http: { status: 429, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
  },
  connection: { code: JsonRpcErrorCode.TooManyRequests },
  session: { code: JsonRpcErrorCode.ServerError },
};

/**
 * The one refusal for a bound on what clients hold (sessions, streams, listens, subscriptions,
 * tasks, requests in flight), answered by whose bound it is (`Holder`), with `data.limit`. What
 * the bound is and what to do about it are in its message and detail.
 */
export class McpCapacityException extends McpException {
  /** Whose bound: `server` and `connection` are counted as capacity refusals, `caller` as rate. */
  readonly holder: Holder;

  constructor(
    readonly capacity: McpCapacity,
    readonly limit?: number,
    detail?: string,
  ) {
    const { holder, message, detail: describe } = CAPACITIES[capacity];
    const { code, http } = ANSWERS[holder];
    super(
      code,
      message,
      detail ?? describe(limit ?? 0),
      limit === undefined ? undefined : { limit },
      http && { status: http.status, headers: { ...http.headers } },
    );
    this.holder = holder;
  }
}
