import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { McpResourceMetadata, McpTemplateExists } from '../interfaces/mcp-resource-options.interface.js';
import { INVALID_RESOURCE_URI } from '../mcp.messages.js';
import { ListChangedCoalescer } from '../notifications/list-changed.coalescer.js';
import { ResourceNotificationService } from '../notifications/resource-notification.service.js';
import { McpResourceRegistry } from '../registry/mcp-resource.registry.js';
import { hasUriScheme } from '../model/uri-scheme.js';
import { McpResourceTemplateRegistry } from '../registry/mcp-resource-template.registry.js';
import type { McpCompleter } from '../interfaces/mcp-completion.interface.js';
import type { UriVariables } from '../templates/index.js';
import { buildTemplateEntry } from './template-entry.js';
import { assertValidIcons } from '../registry/icon-rules.js';
import { runtimeCompleter } from '../completion/completer-call.js';
import { checkedScopes } from '../auth/required-scopes.js';
import { RuntimeResourceSync } from './runtime-resource-sync.js';
import { buildResourceEntry } from './resource-entry.js';
import { McpLogger } from '../logging/mcp-logger.js';
import { McpExtensions } from '../extension/mcp-extensions.js';

type TemplateArgs = { uri: string; variables: UriVariables };

/** Reads a runtime resource: a string, bytes, any JSON value, or a full `{ contents }`. @publicApi */
export type McpResourceReader = (resource: { uri: string }, ctx: McpRequestContext) => unknown;

/** Reads a URI matched by a runtime template. @publicApi */
export type McpTemplateReader = (resource: { uri: string; variables: UriVariables }, ctx: McpRequestContext) => unknown;

/** What a runtime resource may have besides its descriptive fields. @publicApi */
export interface McpResourceRegistration extends McpResourceMetadata {
  /**
   * Scopes a caller's token needs to read it or subscribe to it (resource-server mode), as
   * `@RequireScopes()` does for declared resources.
   * @default undefined (any authorized caller)
   */
  requiredScopes?: readonly string[];
}

/** What a runtime template may have besides its descriptive fields (a template serves no UI resource). @publicApi */
export interface McpTemplateRegistration extends Omit<McpResourceRegistration, 'ui'> {
  /** Completers of the template variables, by name (`completion/complete`). */
  complete?: Record<string, McpCompleter>;
  /**
   * Decides whether a matched URI exists, for `resources/subscribe`: resolve `false` for one that
   * does not; a throw is answered as the error it is, never as "not found".
   * @default undefined (every URI the template matches exists; the reader is not called)
   */
  exists?: McpTemplateExists;
}

/**
 * Registers and unregisters resources while the application runs. Runtime resources are
 * listed and read exactly like decorated ones; each change sends a (coalesced)
 * `notifications/resources/list_changed`. With a shared backend, every instance lists them,
 * accepts subscriptions to them and reads them (the read runs on the instance that registered
 * the resource); `unregister` on any instance removes one everywhere.
 *
 * A read through another instance runs the reader for the same caller: `ctx.auth` is the
 * principal the instance the client talks to authenticated, with its scopes (never its access
 * token, which stays on that instance). The client cannot be reached from where the reader runs,
 * so there `ctx.elicit`, `ctx.sample`, `ctx.listRoots` and `ctx.reportProgress` throw
 * `McpClientUnreachableError` (catch it to read without asking), and `ctx.log` and
 * `ctx.sendNotification` send nothing.
 *
 * @example
 * ```ts
 * this.resources.register(`db://notes/${note.id}`, () => this.store.get(note.id), {
 *   name: note.title,
 *   mimeType: 'application/json',
 * });
 * ```
 * @publicApi
 */
@Injectable()
export class McpResourceService {
  private readonly logger = new McpLogger('McpResources');

  constructor(
    private readonly registry: McpResourceRegistry,
    private readonly coalescer: ListChangedCoalescer,
    private readonly notifications: ResourceNotificationService,
    private readonly templates: McpResourceTemplateRegistry,
    private readonly sync: RuntimeResourceSync,
    private readonly extensions: McpExtensions,
  ) {}

  /**
   * Adds a resource, or replaces the handler and metadata of one registered at runtime; a
   * replaced resource may read differently, so its subscribers get `resources/updated`. A `ui://`
   * URI registers a UI resource (MCP Apps), as `@McpApp` declares one: the reader returns its
   * HTML, `metadata.ui` its `_meta.ui`.
   * @throws McpDefinitionError when the URI has no scheme, names a decorated resource, or has
   * invalid MCP Apps metadata.
   */
  register(uri: string, reader: McpResourceReader, metadata: McpResourceRegistration = {}): void {
    if (!hasUriScheme(uri)) {
      throw new McpDefinitionError(INVALID_RESOURCE_URI(String(uri), 'McpResourceService.register'));
    }
    const existing = this.registry.get(uri);
    if (existing && !existing.runtime) {
      throw new McpDefinitionError(
        `Resource '${uri}' is declared by ${existing.source} and cannot be replaced at runtime`,
      );
    }
    assertValidIcons(metadata.icons, 'McpResourceService.register');
    const where = `McpResourceService.register('${uri}')`;
    const requiredScopes = checkedScopes(metadata.requiredScopes, where);
    const { requiredScopes: _scopes, ...described } = metadata;
    const built = buildResourceEntry(
      uri,
      described,
      async (args: unknown, ctx: McpRequestContext) => reader(args as { uri: string }, ctx),
      where,
      this.extensions,
    );
    const entry = { ...built, source: 'McpResourceService.register', runtime: true, requiredScopes };
    if (existing) this.registry.unregister(uri);
    this.registry.register(entry);
    this.sync.announce(entry);
    this.coalescer.schedule('resources');
    if (existing) {
      this.notifications.notifyResourceUpdated(uri).catch((error: unknown) => {
        this.logger.warn(`Could not tell the subscribers of ${uri} that it was replaced: ${String(error)}`);
      });
    }
  }

  /**
   * Removes a runtime resource. Its subscribers get `notifications/resources/updated` (a
   * re-read then answers `-32002`); their subscriptions stay, so a later registration of the
   * same URI reaches them again.
   * @returns false when no runtime resource had that URI.
   */
  async unregister(uri: string): Promise<boolean> {
    const existing = this.registry.get(uri);
    if (!existing?.runtime) return false;
    this.registry.unregister(uri);
    this.sync.withdraw(uri);
    this.coalescer.schedule('resources');
    await this.notifications.notifyResourceUpdated(uri);
    return true;
  }

  /**
   * Adds a resource template (RFC 6570), or replaces one registered at runtime. The reader gets
   * `({ uri, variables }, ctx)` for every URI the template matches; so does `exists`, when given,
   * for every subscription to one.
   * @throws McpDefinitionError for a malformed or scheme-less template, or a declared one.
   */
  registerTemplate(uriTemplate: string, reader: McpTemplateReader, metadata: McpTemplateRegistration = {}): void {
    const { complete, exists, requiredScopes, ...descriptive } = metadata;
    const scopes = checkedScopes(requiredScopes, `McpResourceService.registerTemplate('${uriTemplate}')`);
    const built = buildTemplateEntry(
      uriTemplate,
      descriptive,
      async (args, ctx) => reader(args as TemplateArgs, ctx),
      'McpResourceService.registerTemplate',
      this.extensions,
      {
        completers: new Map(Object.entries(complete ?? {}).map(([name, fn]) => [name, runtimeCompleter(fn)])),
        exists: exists && (async (args, ctx) => exists(args as TemplateArgs, ctx)),
      },
      true,
    );
    const entry = { ...built, requiredScopes: scopes };
    const existing = this.templates.get(uriTemplate);
    if (existing && !existing.runtime) {
      throw new McpDefinitionError(
        `Resource template '${uriTemplate}' is declared by ${existing.source} and cannot be replaced at runtime`,
      );
    }
    if (existing) this.templates.unregister(uriTemplate);
    this.templates.register(entry);
    this.coalescer.schedule('resources');
  }

  /** Removes a runtime resource template; false when there was none. */
  unregisterTemplate(uriTemplate: string): boolean {
    const existing = this.templates.get(uriTemplate);
    if (!existing?.runtime) return false;
    this.templates.unregister(uriTemplate);
    this.coalescer.schedule('resources');
    return true;
  }

  /** True when a resource (declared or runtime) has this exact URI. */
  has(uri: string): boolean {
    return this.registry.has(uri);
  }
}
