import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MCP_INSTANCE_MESSAGING } from '../backend/mcp-backend.tokens.js';
import { MCP_ALL_INSTANCES, type McpInstanceMessaging } from '../backend/mcp-instance-messaging.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import type { JsonRpcId } from '../model/json-rpc.js';

/** The topic under which a cancellation travels to the instance that runs the request. */
const CANCEL_TOPIC = 'cancel';

interface RoutedCancel {
  readonly sessionId: string;
  readonly id: JsonRpcId;
  readonly reason?: string;
}

/** The reason an in-flight request's signal carries when the client cancelled it. */
export class McpRequestCancelledError extends Error {
  constructor(reason?: string) {
    super(reason ? `The client cancelled the request: ${reason}` : 'The client cancelled the request');
    this.name = 'McpRequestCancelledError';
  }
}

/**
 * An `AbortController` made only when a handler reads its signal or the request is aborted:
 * most requests are never cancelled, and the controller is measurable per-request work.
 */
export class LazyAbortController {
  /** Made on first use; declared only, so a request runs no field initializer for it. */
  declare private controller?: AbortController;
  /**
   * True once the request's response is decided (`McpRequestRun` sets it as the request settles,
   * its channel's `complete()` sooner): the related messages its handler sends from then on are
   * dropped. Declared only, as `controller`.
   */
  declare decided?: true;
  /**
   * The abort reason once aborted (the signal's), undefined until then: set by `abort`, the only
   * way to abort it, so reading it creates nothing. Declared only, as `controller`.
   */
  declare reason?: unknown;

  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  abort(reason: unknown): void {
    const controller = (this.controller ??= new AbortController());
    controller.abort(reason);
    this.reason = controller.signal.reason;
  }
}

/** The scope prefix of a connection's requests (see ClientConnection). */
export const CONNECTION_SCOPE_PREFIX = 'c:';

/**
 * The requests in flight per scope (a session, or a connection for WebSocket and stdio) on this
 * instance, so that `notifications/cancelled` can abort the right handler. Keyed by scope, never
 * globally: a client can only cancel its own requests. A cancellation for a session's request
 * this instance does not run is passed to the other instances (one broadcast, no per-request
 * bookkeeping in the backend); the one running it aborts it.
 */
@Injectable()
export class McpInflightRequests implements OnModuleInit, OnApplicationShutdown {
  private readonly bySession = new Map<string, Map<JsonRpcId, LazyAbortController>>();

  constructor(
    private readonly sessions: McpSessionManager,
    @Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging,
  ) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => this.abortScope(sessionId, 'The session ended'));
    this.messaging.on(CANCEL_TOPIC, (payload) => {
      const { sessionId, id, reason } = payload as RoutedCancel;
      this.abortLocal(sessionId, id, reason);
    });
  }

  onApplicationShutdown(): void {
    for (const scope of [...this.bySession.keys()]) this.abortScope(scope, 'The server is shutting down');
  }

  /**
   * Tracks a request; call `finish` with the same arguments when it is answered. False when the
   * scope already has a request with this id in flight: a second one would make the first
   * uncancellable, so it is refused (and nothing is to be finished).
   */
  start(sessionId: string, id: JsonRpcId, controller: LazyAbortController): boolean {
    let requests = this.bySession.get(sessionId);
    if (!requests) {
      requests = new Map();
      this.bySession.set(sessionId, requests);
    }
    if (requests.has(id)) return false;
    requests.set(id, controller);
    return true;
  }

  /** Stops tracking a request `start` tracked; a later request that took its id is left alone. */
  finish(sessionId: string, id: JsonRpcId, controller: LazyAbortController): void {
    const requests = this.bySession.get(sessionId);
    if (requests?.get(id) !== controller) return;
    requests.delete(id);
    if (requests.size === 0) this.bySession.delete(sessionId);
  }

  /**
   * Aborts a request of this session. False when this instance does not run it (unknown,
   * already answered, or running elsewhere: then the other instances are told).
   */
  cancel(sessionId: string, id: JsonRpcId, reason?: string): boolean {
    if (this.abortLocal(sessionId, id, reason)) return true;
    // A connection's requests (WebSocket, stdio: `c:` scopes) run where the connection is.
    if (!sessionId.startsWith(CONNECTION_SCOPE_PREFIX)) {
      this.messaging.send(MCP_ALL_INSTANCES, CANCEL_TOPIC, { sessionId, id, reason } satisfies RoutedCancel);
    }
    return false;
  }

  private abortLocal(sessionId: string, id: JsonRpcId, reason?: string): boolean {
    const controller = this.bySession.get(sessionId)?.get(id);
    if (!controller) return false;
    controller.abort(new McpRequestCancelledError(reason));
    return true;
  }

  /** Aborts every request of a scope (its session ended, its connection closed). */
  abortScope(sessionId: string, reason: string): void {
    const requests = this.bySession.get(sessionId);
    this.bySession.delete(sessionId);
    for (const controller of requests?.values() ?? []) controller.abort(new Error(reason));
  }
}
