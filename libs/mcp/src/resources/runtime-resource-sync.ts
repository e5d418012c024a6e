import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { MCP_INSTANCE_MESSAGING } from '../backend/mcp-backend.tokens.js';
import { MCP_ALL_INSTANCES, type McpInstanceMessaging } from '../backend/mcp-instance-messaging.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpException } from '../errors/mcp.exception.js';
import { McpBackendUnavailableError } from '../backend/mcp-backend.interface.js';
import { McpResourceRegistry, type McpResourceEntry } from '../registry/mcp-resource.registry.js';
import { toContents } from './resource-contents.js';
import type { McpCacheHints } from '../interfaces/mcp-cache.interface.js';

/** How long a read forwarded to the instance that registered the resource may take. */
const REMOTE_READ_TIMEOUT_MS = 10_000;

/** A runtime resource as other instances learn it. */
interface Announced {
  readonly uri: string;
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly mimeType?: string;
  readonly cache?: McpCacheHints;
  /** Every instance enforces the scopes a read needs, not only the one that registered it. */
  readonly requiredScopes?: readonly string[];
}

interface ReadRequest {
  readonly id: string;
  readonly uri: string;
  readonly sessionId?: string;
}

interface ReadReply {
  readonly id: string;
  readonly contents?: unknown[];
  readonly error?: { code: number; message: string; detail?: string; data?: Record<string, unknown> };
}

/**
 * Runtime resources on several instances (DECISIONS D9). `McpResourceService.register` on one
 * instance is announced to every other, which then lists it, accepts subscriptions to it, and
 * reads it by forwarding the read to the instance that registered it: the handler is code, and
 * runs where it was registered (an instance that registered the same URI itself runs its own).
 * `unregister` on any instance removes the resource everywhere. An instance that starts late
 * asks the others for what they registered. With one instance (the in-memory backend) nothing
 * is sent.
 *
 * A read forwarded to an instance that died fails with 503 (`Retry-After`) until the resource
 * is registered again.
 */
@Injectable()
export class RuntimeResourceSync implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpResources');
  private readonly reads = new Map<string, { resolve(reply: ReadReply): void }>();

  constructor(
    private readonly registry: McpResourceRegistry,
    @Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging,
  ) {
    messaging.on('resource-registered', (payload, from) => this.adopt(payload as Announced, from));
    messaging.on('resource-unregistered', (payload) => this.forget((payload as { uri: string }).uri));
    messaging.on('resource-sync', (_payload, from) => this.answerSync(from));
    messaging.on('resource-read', (payload, from) => void this.serveRead(payload as ReadRequest, from));
    messaging.on('resource-read-reply', (payload) =>
      this.reads.get((payload as ReadReply).id)?.resolve(payload as ReadReply),
    );
  }

  /** A late instance asks the others for what they registered. */
  onApplicationBootstrap(): void {
    this.messaging.send(MCP_ALL_INSTANCES, 'resource-sync', {});
  }

  /** Tells the other instances about a resource registered here. */
  announce(entry: McpResourceEntry): void {
    this.messaging.send(MCP_ALL_INSTANCES, 'resource-registered', announcementOf(entry));
  }

  /** Tells the other instances to drop a resource. */
  withdraw(uri: string): void {
    this.messaging.send(MCP_ALL_INSTANCES, 'resource-unregistered', { uri });
  }

  private adopt(announced: Announced, origin: string): void {
    const existing = this.registry.get(announced.uri);
    // A declared resource, or one this instance registered itself, is served here.
    if (existing && (!existing.runtime || existing.origin === undefined)) return;
    if (existing) this.registry.unregister(announced.uri);
    this.registry.register({
      uri: announced.uri,
      descriptor: announced.descriptor,
      mimeType: announced.mimeType,
      cache: announced.cache,
      requiredScopes: announced.requiredScopes,
      handler: async (_args, ctx) => ({
        contents: await this.readRemote(origin, announced.uri, ctx),
      }),
      source: `McpResourceService.register on instance ${origin}`,
      runtime: true,
      origin,
    });
  }

  private forget(uri: string): void {
    const existing = this.registry.get(uri);
    if (existing?.runtime) this.registry.unregister(uri);
  }

  private answerSync(requester: string): void {
    for (const entry of this.registry.values()) {
      if (entry.runtime && entry.origin === undefined) {
        this.messaging.send(requester, 'resource-registered', announcementOf(entry));
      }
    }
  }

  private readRemote(origin: string, uri: string, ctx: McpRequestContext): Promise<unknown[]> {
    const id = randomUUID();
    return new Promise<unknown[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.reads.delete(id);
        reject(new McpBackendUnavailableError(`instance ${origin}, which registered ${uri}, did not answer the read`));
      }, REMOTE_READ_TIMEOUT_MS);
      timer.unref();
      this.reads.set(id, {
        resolve: (reply) => {
          clearTimeout(timer);
          this.reads.delete(id);
          if (reply.error) {
            const { code, message, detail, data } = reply.error;
            reject(new McpException(code, message, detail, data));
          } else resolve(reply.contents ?? []);
        },
      });
      this.messaging.send(origin, 'resource-read', { id, uri, sessionId: ctx.sessionId } satisfies ReadRequest);
    });
  }

  /** Runs a read forwarded by another instance, with a context that carries only the session. */
  private async serveRead(request: ReadRequest, from: string): Promise<void> {
    const entry = this.registry.get(request.uri);
    let reply: ReadReply;
    try {
      if (!entry || entry.origin !== undefined)
        throw new McpException(-32002, 'Resource not found', `Resource '${request.uri}' is not registered`, {
          uri: request.uri,
        });
      const ctx = {
        sessionId: request.sessionId,
        method: 'resources/read',
        signal: AbortSignal.timeout(REMOTE_READ_TIMEOUT_MS),
      };
      const value = await entry.handler({ uri: request.uri }, ctx as unknown as McpRequestContext);
      reply = { id: request.id, contents: toContents(request.uri, entry.mimeType, value) };
    } catch (error) {
      const exception =
        error instanceof McpException
          ? error
          : new McpException(-32603, 'Internal error', 'The resource could not be read');
      if (!(error instanceof McpException))
        this.logger.error(`A forwarded read of ${request.uri} failed: ${String(error)}`);
      const { code, message, data } = exception.toJsonRpcError();
      reply = {
        id: request.id,
        error: { code, message, detail: exception.detail, data: data as Record<string, unknown> },
      };
    }
    this.messaging.send(from, 'resource-read-reply', reply);
  }
}

const announcementOf = (entry: McpResourceEntry): Announced => ({
  uri: entry.uri,
  descriptor: entry.descriptor,
  mimeType: entry.mimeType,
  cache: entry.cache,
  requiredScopes: entry.requiredScopes,
});
