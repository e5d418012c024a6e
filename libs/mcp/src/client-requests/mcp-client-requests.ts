import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import type { JsonRpcMessage, JsonRpcResponse } from '../protocol/json-rpc.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { McpClientRequestError, McpClientRequestTimeoutError } from './client-request.errors.js';

interface Pending {
  readonly method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** How to send one server→client request. */
export interface ClientRequestOptions {
  /** Writes a message towards the client (the asking request's stream, or the session's). */
  send(message: JsonRpcMessage): void;
  /** Aborting it withdraws the request (`notifications/cancelled` to the client). */
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Requests the server sends to clients (sampling, elicitation, roots) and their answers. Ids are
 * unique per process and answers are matched per session: a response that another session
 * posts with the same id is ignored.
 */
@Injectable()
export class McpClientRequests implements OnModuleInit, OnApplicationShutdown {
  private readonly pending = new Map<string, Map<string, Pending>>();
  private sequence = 0;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly sessions: McpSessionManager,
  ) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => this.rejectSession(sessionId, 'The session ended'));
  }

  onApplicationShutdown(): void {
    for (const sessionId of [...this.pending.keys()]) this.rejectSession(sessionId, 'The server is shutting down');
  }

  /** Sends a request to the client of `sessionId` and resolves to its result. */
  request(
    sessionId: string,
    method: string,
    params: Record<string, unknown>,
    options: ClientRequestOptions,
  ): Promise<Record<string, unknown>> {
    const id = `srv-${++this.sequence}`;
    const timeoutMs = options.timeoutMs ?? this.options.clientRequestTimeoutMs;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(abortReason(options.signal));
        return;
      }
      const requests = this.pending.get(sessionId) ?? new Map<string, Pending>();
      this.pending.set(sessionId, requests);
      const settle = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        requests.delete(id);
        if (requests.size === 0 && this.pending.get(sessionId) === requests) this.pending.delete(sessionId);
      };
      const onAbort = () => {
        settle();
        options.send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'The server request was cancelled' },
        });
        reject(abortReason(options.signal!));
      };
      const timer = setTimeout(() => {
        settle();
        options.send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'Timed out' },
        });
        reject(new McpClientRequestTimeoutError(method, timeoutMs));
      }, timeoutMs);
      timer.unref();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      requests.set(id, {
        method,
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      options.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /**
   * Takes a response that arrived from the client of `sessionId`; false when no request of
   * that session has its id (unknown, already answered, or another session's).
   */
  receive(sessionId: string, response: JsonRpcResponse): boolean {
    const pending = typeof response.id === 'string' ? this.pending.get(sessionId)?.get(response.id) : undefined;
    if (!pending) return false;
    if ('error' in response) {
      const { code, message, data } = response.error;
      pending.reject(new McpClientRequestError(pending.method, code, message, data));
    } else {
      pending.resolve(isObject(response.result) ? response.result : {});
    }
    return true;
  }

  private rejectSession(sessionId: string, reason: string): void {
    const requests = this.pending.get(sessionId);
    this.pending.delete(sessionId);
    for (const pending of [...(requests?.values() ?? [])]) pending.reject(new Error(reason));
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('The request was aborted');
