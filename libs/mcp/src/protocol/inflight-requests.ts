import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import type { JsonRpcId } from './json-rpc.js';

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
  private controller?: AbortController;

  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /** The abort reason, without creating the controller. */
  get reason(): unknown {
    return this.controller?.signal.reason;
  }

  abort(reason: unknown): void {
    (this.controller ??= new AbortController()).abort(reason);
  }
}

/**
 * The requests each session has in flight, so that `notifications/cancelled` can abort the
 * right handler. Keyed by session, never globally: a client can only cancel its own requests.
 */
@Injectable()
export class McpInflightRequests implements OnModuleInit, OnApplicationShutdown {
  private readonly bySession = new Map<string, Map<JsonRpcId, LazyAbortController>>();

  constructor(private readonly sessions: McpSessionManager) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => this.abortSession(sessionId, 'The session ended'));
  }

  onApplicationShutdown(): void {
    for (const sessionId of [...this.bySession.keys()]) this.abortSession(sessionId, 'The server is shutting down');
  }

  /** Tracks a request; call the returned function when it is answered. */
  start(sessionId: string, id: JsonRpcId, controller: LazyAbortController): () => void {
    let requests = this.bySession.get(sessionId);
    if (!requests) {
      requests = new Map();
      this.bySession.set(sessionId, requests);
    }
    requests.set(id, controller);
    return () => {
      if (requests.get(id) !== controller) return;
      requests.delete(id);
      if (requests.size === 0 && this.bySession.get(sessionId) === requests) this.bySession.delete(sessionId);
    };
  }

  /** Aborts a request of this session; false when it is unknown or already answered. */
  cancel(sessionId: string, id: JsonRpcId, reason?: string): boolean {
    const controller = this.bySession.get(sessionId)?.get(id);
    if (!controller) return false;
    controller.abort(new McpRequestCancelledError(reason));
    return true;
  }

  private abortSession(sessionId: string, reason: string): void {
    const requests = this.bySession.get(sessionId);
    this.bySession.delete(sessionId);
    for (const controller of requests?.values() ?? []) controller.abort(new Error(reason));
  }
}
