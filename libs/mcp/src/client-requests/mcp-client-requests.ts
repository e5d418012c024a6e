import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MCP_INSTANCE_MESSAGING } from '../backend/mcp-backend.tokens.js';
import type { McpInstanceMessaging } from '../backend/mcp-instance-messaging.js';
import type { JsonRpcResponse } from '../model/json-rpc.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { principalDigest, type McpPrincipal } from '../model/mcp-principal.js';
import { argumentDepthError } from '../schema/argument-depth.js';
import { withTraceContext } from '../telemetry/trace-context.js';
import {
  McpClientRequestError,
  McpClientRequestTimeoutError,
  McpClientUnreachableError,
} from '../errors/client-request.errors.js';
import { isObject } from '../model/is-object.js';
import { McpOptions, type McpOptionGroup } from '../mcp-option-groups.js';

interface Pending {
  readonly method: string;
  /** Digest of the principal asked (resource-server mode): only it may answer. */
  readonly principal?: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** How to send one server→client request. */
export interface ClientRequestOptions {
  /**
   * Writes a serialized message towards the client (the asking request's stream, or the
   * session's); false when nothing can carry it.
   */
  send(json: string): boolean;
  /** Aborting it withdraws the request (`notifications/cancelled` to the client). */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The principal of the request that asks: an answer from any other is ignored. */
  principal?: McpPrincipal;
}

/** The topic under which a client's answer travels to the instance that asked. */
const RESPONSE_TOPIC = 'client-response';

interface RoutedResponse {
  readonly sessionId: string;
  readonly response: JsonRpcResponse;
  /** Digest of the answering principal (resource-server mode). */
  readonly principal?: string;
}

/**
 * Requests the server sends to clients (sampling, elicitation, roots) and their answers. Ids are
 * `srv-<instance id>-<n>`: unique across instances, and naming the instance that waits for the
 * answer, so an answer posted to any instance reaches it (`McpInstanceMessaging`). Answers are
 * matched per session there: a response that another session posts with the same id is ignored.
 */
@Injectable()
export class McpClientRequests implements OnModuleInit, OnApplicationShutdown {
  private readonly pending = new Map<string, Map<string, Pending>>();
  private sequence = 0;
  private readonly prefix: string;

  constructor(
    @McpOptions('limits') private readonly options: McpOptionGroup<'limits'>,
    private readonly sessions: McpSessionManager,
    @Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging,
    // Always injected by the module; a spec that builds the service by hand records nothing.
    private readonly telemetry: McpTelemetry = new McpTelemetry({ tracing: false, metrics: false }),
  ) {
    this.prefix = `srv-${messaging.instanceId}-`;
  }

  onModuleInit(): void {
    this.telemetry.gauge(
      'client_requests.pending',
      'Requests this instance sent a client (elicitation, sampling, roots) and awaits the answer of.',
      '{request}',
      (observe) => {
        let pending = 0;
        for (const requests of this.pending.values()) pending += requests.size;
        observe(pending);
      },
    );
    this.sessions.onSessionEnd((sessionId) => this.rejectSession(sessionId, 'The session ended'));
    this.messaging.on(RESPONSE_TOPIC, (payload) => {
      const { sessionId, response, principal } = payload as RoutedResponse;
      this.settle(sessionId, response, principal);
    });
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
    const id = `${this.prefix}${++this.sequence}`;
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
      const withdraw = (reason: string) =>
        options.send(
          JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }),
        );
      const onAbort = () => {
        settle();
        withdraw('The server request was cancelled');
        reject(abortReason(options.signal!));
      };
      const timer = setTimeout(() => {
        settle();
        withdraw('Timed out');
        reject(new McpClientRequestTimeoutError(method, timeoutMs));
      }, timeoutMs);
      timer.unref();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      requests.set(id, {
        method,
        principal: principalDigest(options.principal),
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      // Serialized here so that a value JSON cannot hold fails this request, not the transport;
      // a message nothing can carry fails it at once instead of after the timeout.
      let sent: boolean;
      try {
        sent = options.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: withTraceContext(params) }));
      } catch (error) {
        settle();
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (!sent) {
        settle();
        reject(new McpClientUnreachableError(method, 'no open channel to the client (a GET stream or an SSE answer)'));
      }
    });
  }

  /**
   * Takes a response that arrived from the client of `sessionId`. An answer to a request of
   * another instance is forwarded to it, unless it nests deeper than `maxArgumentDepth`. False
   * when no request of that session here has its id (unknown, already answered, another
   * session's, forwarded, dropped), or when it comes from another principal than the one asked.
   */
  receive(sessionId: string, response: JsonRpcResponse, principal?: McpPrincipal): boolean {
    const digest = principalDigest(principal);
    if (this.settle(sessionId, response, digest)) return true;
    const owner = typeof response.id === 'string' ? instanceOf(response.id) : undefined;
    // Forwarding serializes the response, which recurses: one nested deeper than any answer
    // needs is dropped (its request times out) rather than overflow the stack.
    if (
      owner !== undefined &&
      owner !== this.messaging.instanceId &&
      argumentDepthError(response, this.options.maxArgumentDepth) === undefined
    ) {
      this.messaging.send(owner, RESPONSE_TOPIC, { sessionId, response, principal: digest } satisfies RoutedResponse);
    }
    return false;
  }

  /** Resolves or rejects the pending request of this session with the response's id. */
  private settle(sessionId: string, response: JsonRpcResponse, principal: string | undefined): boolean {
    const pending = typeof response.id === 'string' ? this.pending.get(sessionId)?.get(response.id) : undefined;
    if (!pending || pending.principal !== principal) return false;
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

/** The instance named by a `srv-<instance id>-<n>` id; undefined for any other id. */
function instanceOf(id: string): string | undefined {
  const last = id.lastIndexOf('-');
  return id.startsWith('srv-') && last > 4 ? id.slice(4, last) : undefined;
}

const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('The request was aborted');
