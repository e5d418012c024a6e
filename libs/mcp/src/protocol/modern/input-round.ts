import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { JsonRpcErrorCode } from '../../model/json-rpc.js';
import { isObject } from '../../model/is-object.js';

/** One request of an `InputRequiredResult`: what the client is asked to run. */
export interface McpInputRequest {
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  readonly params: Record<string, unknown>;
}

/**
 * Thrown into a handler's pending `ctx.elicit()` / `ctx.sample()` / `ctx.listRoots()` when the
 * round closes: the request is answered with `input_required`, and the handler runs again on the
 * client's retry. Handlers should let it pass (it is not a failure).
 * @publicApi
 */
export class McpInputRequiredSignal extends McpException {
  constructor() {
    super(JsonRpcErrorCode.InternalError, 'Input required', 'The request continues after the client answers');
  }
}

/** The short prefix of the keys this library assigns per method, in call order. */
const KEY_PREFIX: Record<McpInputRequest['method'], string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Whether an answer has the shape of the result of `method` (a client cannot hand in anything). */
function isResultOf(method: McpInputRequest['method'], answer: unknown): answer is Record<string, unknown> {
  if (!isObject(answer)) return false;
  switch (method) {
    case 'elicitation/create':
      return answer.action === 'accept' || answer.action === 'decline' || answer.action === 'cancel';
    case 'sampling/createMessage':
      return typeof answer.role === 'string' && answer.content !== undefined;
    case 'roots/list':
      return Array.isArray(answer.roots);
  }
}

/**
 * One round of a multi round-trip request (MCP 2026-07-28 MRTR). The handler runs from the
 * start on every round: each ask is answered from the client's `inputResponses` (or from the
 * answers of earlier rounds kept in `requestState`) when it has one; otherwise it joins this
 * round's `inputRequests`. The round closes one macrotask after its first unanswered ask, so
 * asks made together (`Promise.all`) land in the same round; the handler's pending asks then
 * reject with `McpInputRequiredSignal`.
 */
export class InputRound {
  // Created on the first ask: most handlers never ask, and a round is opened for every call.
  private requests?: Map<string, McpInputRequest>;
  private counters?: Map<string, number>;
  private waiters?: Set<(error: Error) => void>;
  private used?: Map<string, unknown>;
  private closeScheduled = false;
  private isClosed = false;
  private onClose?: () => void;

  /**
   * @param answers the client's answers: earlier rounds' (from the state) plus `inputResponses`.
   * @param state what the handler kept in earlier rounds (`ctx.roundState`).
   */
  constructor(
    private readonly answers: Record<string, unknown>,
    readonly state: Record<string, unknown>,
  ) {}

  /** Answers an ask from the client's responses, or adds it to the round. */
  ask(
    method: McpInputRequest['method'],
    params: Record<string, unknown>,
    key?: string,
  ): Promise<Record<string, unknown>> {
    const id = key ?? this.nextKey(method);
    if (Object.hasOwn(this.answers, id)) {
      const answer = this.answers[id];
      if (!isResultOf(method, answer)) {
        throw new McpInvalidParamsException(`inputResponses.${id} is not a valid result of ${method}`, { key: id });
      }
      (this.used ??= new Map()).set(id, answer);
      return Promise.resolve(answer);
    }
    if (this.isClosed) return Promise.reject(new McpInputRequiredSignal());
    (this.requests ??= new Map()).set(id, { method, params });
    this.scheduleClose();
    return new Promise<Record<string, unknown>>((_resolve, reject) => (this.waiters ??= new Set()).add(reject));
  }

  /**
   * Settles with the handler's result, or with `closedValue` once the round closed with
   * unanswered asks (the handler then ends with `McpInputRequiredSignal` in its pending asks;
   * its outcome is dropped). One round, one race.
   */
  race<T, C>(running: Promise<T>, closedValue: C): Promise<T | C> {
    running.catch(() => undefined);
    return new Promise<T | C>((resolve, reject) => {
      this.onClose = () => resolve(closedValue);
      running.then(resolve, reject);
    });
  }

  /** True once the round closed with something to ask. */
  get inputRequired(): boolean {
    return this.isClosed;
  }

  /** What the client is asked this round, by key. */
  inputRequests(): Record<string, McpInputRequest> {
    return this.requests ? Object.fromEntries(this.requests) : {};
  }

  /** The answers to carry into the next round: every answer the handler used so far. */
  answersToKeep(): Record<string, unknown> {
    return this.used ? Object.fromEntries(this.used) : {};
  }

  private nextKey(method: McpInputRequest['method']): string {
    const prefix = KEY_PREFIX[method];
    this.counters ??= new Map();
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}-${n}`;
  }

  private scheduleClose(): void {
    if (this.closeScheduled) return;
    this.closeScheduled = true;
    setImmediate(() => {
      this.isClosed = true;
      this.onClose?.();
      const signal = new McpInputRequiredSignal();
      for (const reject of this.waiters ?? []) reject(signal);
      this.waiters?.clear();
    });
  }
}
