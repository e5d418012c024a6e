import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { MCP_INSTANCE_MESSAGING } from '../backend/mcp-backend.tokens.js';
import { MCP_ALL_INSTANCES, type McpInstanceMessaging } from '../backend/mcp-instance-messaging.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpException } from '../errors/mcp.exception.js';
import { McpClientUnreachableError } from '../errors/client-request.errors.js';
import { JsonRpcErrorCode } from '../model/json-rpc.js';
import { McpBackendUnavailableError } from '../backend/mcp-backend.interface.js';
import { McpResourceRegistry, type McpResourceEntry } from '../registry/mcp-resource.registry.js';
import { toContents } from '../results/resource-contents.js';
import { forwardedReadContext, forwardedReadFacts, type ForwardedReadFacts } from './forwarded-read.context.js';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import { ListChangedCoalescer } from '../notifications/list-changed.coalescer.js';
import { ResourceNotificationService } from '../notifications/resource-notification.service.js';
import { McpLogger } from '../logging/mcp-logger.js';

/** How long a read forwarded to the instance that registered the resource may take. */
const REMOTE_READ_TIMEOUT_MS = 10_000;
/** How often the instances that announced resources here are checked for liveness. */
export const ORIGIN_LIVENESS_CHECK_MS = 5_000;

/** A runtime resource as other instances learn it. */
interface Announced {
  readonly uri: string;
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly mimeType?: string;
  readonly cache?: McpCacheHints;
  /** Every instance enforces the scopes a read needs, not only the one that registered it. */
  readonly requiredScopes?: readonly string[];
  /** The process that announced it: an instance restarted under the same id has a new one. */
  readonly life: string;
}

/** What was adopted from one instance, in one of its lives. */
interface Adopted {
  readonly life: string;
  readonly uris: Set<string>;
}

interface ReadRequest {
  readonly id: string;
  readonly uri: string;
  /** Who reads, as the forwarding instance authenticated them, and what the handler may know of the request. */
  readonly facts: ForwardedReadFacts;
}

interface ReadReply {
  readonly id: string;
  readonly contents?: unknown[];
  readonly error?: { code: number; message: string; detail?: string; data?: Record<string, unknown> };
}

/**
 * Runtime resources on several instances (docs/decisions/0005-several-instances-share-one-backend.md).
 * `McpResourceService.register` on one
 * instance is announced to every other, which then lists it, accepts subscriptions to it, and
 * reads it by forwarding the read to the instance that registered it: the handler is code, and
 * runs where it was registered (an instance that registered the same URI itself runs its own).
 * `unregister` on any instance removes the resource everywhere. An instance that starts late
 * asks the others for what they registered. With one instance (the in-memory backend) nothing
 * is sent.
 *
 * The resources of an instance that is gone are dropped everywhere else: one that shuts down
 * says so (`resource-origin-left`); one that crashed is found by the liveness check every
 * `ORIGIN_LIVENESS_CHECK_MS` (its heartbeat lapsed); one that restarts under the same id asks
 * for a sync, which drops what its previous life announced. Each instance that drops some sends
 * `list_changed` and `updated` for them (so a client may hear it more than once: both are
 * idempotent). Until then a read forwarded to a dead instance answers 503 (`Retry-After`).
 *
 * A forwarded read carries its caller: the handler sees the principal (with its scopes, without
 * its token) that the instance the client talks to authenticated, never anything the client
 * sent. That instance alone can reach the client, so the handler's context cannot ask it or
 * report progress to it (`forwardedReadContext`).
 */
@Injectable()
export class RuntimeResourceSync implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new McpLogger('McpResources');
  private readonly reads = new Map<string, { resolve(reply: ReadReply): void }>();
  /** What was adopted from each other instance. */
  private readonly adopted = new Map<string, Adopted>();
  /** This process, as the others tell its announcements from its earlier lives'. */
  private readonly life = randomUUID();
  private livenessTimer?: NodeJS.Timeout;

  constructor(
    private readonly registry: McpResourceRegistry,
    @Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging,
    private readonly coalescer: ListChangedCoalescer,
    private readonly notifications: ResourceNotificationService,
  ) {
    messaging.on('resource-registered', (payload, from) => this.adopt(payload as Announced, from));
    messaging.on('resource-unregistered', (payload) => this.forget((payload as { uri: string }).uri));
    messaging.on('resource-sync', (payload, from) => {
      // An instance starting under an id seen before: what it announced in its last life is gone.
      if (this.adopted.get(from)?.life !== (payload as { life?: string }).life) this.forgetOrigin(from, 'restarted');
      this.answerSync(from);
    });
    messaging.on('resource-origin-left', (_payload, from) => this.forgetOrigin(from, 'shut down'));
    messaging.on('resource-read', (payload, from) => void this.serveRead(payload as ReadRequest, from));
    messaging.on('resource-read-reply', (payload) =>
      this.reads.get((payload as ReadReply).id)?.resolve(payload as ReadReply),
    );
  }

  /** A late instance asks the others for what they registered. */
  onApplicationBootstrap(): void {
    this.messaging.send(MCP_ALL_INSTANCES, 'resource-sync', { life: this.life });
    if (!this.messaging.deadInstances) return;
    this.livenessTimer = setInterval(() => void this.dropDeadOrigins(), ORIGIN_LIVENESS_CHECK_MS);
    this.livenessTimer.unref();
  }

  /** A deploy stops this instance: the others drop the resources only it could read. */
  beforeApplicationShutdown(): void {
    clearInterval(this.livenessTimer);
    this.livenessTimer = undefined;
    const ownsSome = [...this.registry.values()].some((entry) => entry.runtime && entry.origin === undefined);
    if (ownsSome) this.messaging.send(MCP_ALL_INSTANCES, 'resource-origin-left', {});
  }

  /**
   * Drops the resources of the instances that announced some and are gone (one backend call,
   * whatever their number). A backend that cannot answer decides nothing: the next check will.
   */
  async dropDeadOrigins(): Promise<void> {
    if (this.adopted.size === 0 || !this.messaging.deadInstances) return;
    let dead: string[];
    try {
      dead = await this.messaging.deadInstances([...this.adopted.keys()]);
    } catch (error) {
      this.logger.debug(`The liveness of other instances is unknown for now: ${String(error)}`);
      return;
    }
    for (const origin of dead) this.forgetOrigin(origin, 'its liveness lapsed');
  }

  /** Tells the other instances about a resource registered here. */
  announce(entry: McpResourceEntry): void {
    this.messaging.send(MCP_ALL_INSTANCES, 'resource-registered', this.announcementOf(entry));
  }

  /** Tells the other instances to drop a resource. */
  withdraw(uri: string): void {
    this.messaging.send(MCP_ALL_INSTANCES, 'resource-unregistered', { uri });
  }

  private adopt(announced: Announced, origin: string): void {
    if (this.adopted.has(origin) && this.adopted.get(origin)!.life !== announced.life) {
      this.forgetOrigin(origin, 'restarted');
    }
    const existing = this.registry.get(announced.uri);
    // A declared resource, or one this instance registered itself, is served here.
    if (existing && (!existing.runtime || existing.origin === undefined)) return;
    if (existing) this.unregisterAdopted(existing);
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
    let adopted = this.adopted.get(origin);
    if (!adopted) this.adopted.set(origin, (adopted = { life: announced.life, uris: new Set() }));
    adopted.uris.add(announced.uri);
  }

  private forget(uri: string): void {
    const existing = this.registry.get(uri);
    if (existing?.runtime) this.unregisterAdopted(existing);
  }

  /** Drops every resource adopted from `origin`, and tells the clients once. */
  private forgetOrigin(origin: string, why: string): void {
    const adopted = this.adopted.get(origin);
    if (!adopted) return;
    this.adopted.delete(origin);
    const dropped: string[] = [];
    for (const uri of adopted.uris) {
      const entry = this.registry.get(uri);
      if (entry?.origin !== origin) continue;
      this.registry.unregister(uri);
      dropped.push(uri);
    }
    if (dropped.length === 0) return;
    this.logger.log(`Dropped ${dropped.length} runtime resource(s) of instance ${origin}, which ${why}`);
    this.coalescer.schedule('resources');
    for (const uri of dropped) {
      this.notifications.notifyResourceUpdated(uri).catch((error: unknown) => {
        this.logger.warn(`Could not tell the subscribers of ${uri} that it is gone: ${String(error)}`);
      });
    }
  }

  /** Unregisters a runtime entry, and forgets where it came from when another instance announced it. */
  private unregisterAdopted(entry: McpResourceEntry): void {
    this.registry.unregister(entry.uri);
    if (entry.origin === undefined) return;
    const adopted = this.adopted.get(entry.origin);
    adopted?.uris.delete(entry.uri);
    if (adopted?.uris.size === 0) this.adopted.delete(entry.origin);
  }

  private answerSync(requester: string): void {
    for (const entry of this.registry.values()) {
      if (entry.runtime && entry.origin === undefined) {
        this.messaging.send(requester, 'resource-registered', this.announcementOf(entry));
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
      this.messaging.send(origin, 'resource-read', { id, uri, facts: forwardedReadFacts(ctx) } satisfies ReadRequest);
    });
  }

  /** Runs a read forwarded by another instance, for the caller that instance authenticated. */
  private async serveRead(request: ReadRequest, from: string): Promise<void> {
    const entry = this.registry.get(request.uri);
    let reply: ReadReply;
    try {
      if (!entry || entry.origin !== undefined)
        throw new McpException(-32002, 'Resource not found', `Resource '${request.uri}' is not registered`, {
          uri: request.uri,
        });
      const ctx = forwardedReadContext(request.uri, request.facts, AbortSignal.timeout(REMOTE_READ_TIMEOUT_MS));
      const value = await entry.handler({ uri: request.uri }, ctx);
      reply = { id: request.id, contents: toContents(request.uri, entry.mimeType, value) };
    } catch (error) {
      const exception = this.readFailure(error, request.uri);
      const { code, message, data } = exception.toJsonRpcError();
      reply = {
        id: request.id,
        error: { code, message, detail: exception.detail, data: data as Record<string, unknown> },
      };
    }
    this.messaging.send(from, 'resource-read-reply', reply);
  }

  /** The error a forwarded read answers: the reader's own, or one that tells the client nothing internal. */
  private readFailure(error: unknown, uri: string): McpException {
    if (error instanceof McpException) return error;
    if (error instanceof McpClientUnreachableError) {
      // The reader asked a client that only the reading instance can reach.
      return new McpException(JsonRpcErrorCode.InternalError, 'Client unreachable', error.message, { uri });
    }
    this.logger.error(`A forwarded read of ${uri} failed: ${String(error)}`);
    return new McpException(JsonRpcErrorCode.InternalError, 'Internal error', 'The resource could not be read');
  }

  private announcementOf(entry: McpResourceEntry): Announced {
    return {
      uri: entry.uri,
      descriptor: entry.descriptor,
      mimeType: entry.mimeType,
      cache: entry.cache,
      requiredScopes: entry.requiredScopes,
      life: this.life,
    };
  }
}
