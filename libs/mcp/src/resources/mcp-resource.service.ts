import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { McpResourceMetadata } from '../interfaces/mcp-resource-options.interface.js';
import { INVALID_RESOURCE_URI } from '../mcp.messages.js';
import { ListChangedCoalescer } from '../notifications/list-changed.coalescer.js';
import { ResourceNotificationService } from '../notifications/resource-notification.service.js';
import { buildResourceDescriptor, hasUriScheme, McpResourceRegistry } from '../registry/mcp-resource.registry.js';
import { McpResourceTemplateRegistry } from '../registry/mcp-resource-template.registry.js';
import type { McpCompleter } from '../interfaces/mcp-completion.interface.js';
import type { UriVariables } from '../templates/index.js';
import { buildTemplateEntry } from './template-entry.js';
import { assertValidIcons } from '../registry/icon-rules.js';

/** Reads a runtime resource: a string, bytes, any JSON value, or a full `{ contents }`. @publicApi */
export type McpResourceReader = (resource: { uri: string }, ctx: McpRequestContext) => unknown;

/** Reads a URI matched by a runtime template. @publicApi */
export type McpTemplateReader = (resource: { uri: string; variables: UriVariables }, ctx: McpRequestContext) => unknown;

/**
 * Registers and unregisters resources while the application runs. Runtime resources are
 * listed and read exactly like decorated ones; each change sends a (coalesced)
 * `notifications/resources/list_changed`.
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
  constructor(
    private readonly registry: McpResourceRegistry,
    private readonly coalescer: ListChangedCoalescer,
    private readonly notifications: ResourceNotificationService,
    private readonly templates: McpResourceTemplateRegistry,
  ) {}

  /**
   * Adds a resource, or replaces the handler and metadata of one registered at runtime.
   * @throws McpDefinitionError when the URI has no scheme, or names a decorated resource.
   */
  register(uri: string, reader: McpResourceReader, metadata: McpResourceMetadata = {}): void {
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
    if (existing) this.registry.unregister(uri);
    this.registry.register({
      uri,
      descriptor: buildResourceDescriptor(uri, metadata),
      mimeType: metadata.mimeType,
      handler: async (args, ctx) => reader(args as { uri: string }, ctx),
      source: 'McpResourceService.register',
      runtime: true,
    });
    this.coalescer.schedule('notifications/resources/list_changed');
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
    this.coalescer.schedule('notifications/resources/list_changed');
    await this.notifications.notifyResourceUpdated(uri);
    return true;
  }

  /**
   * Adds a resource template (RFC 6570), or replaces one registered at runtime. The reader gets
   * `({ uri, variables }, ctx)` for every URI the template matches.
   * @throws McpDefinitionError for a malformed or scheme-less template, or a declared one.
   */
  registerTemplate(
    uriTemplate: string,
    reader: McpTemplateReader,
    metadata: McpResourceMetadata & { complete?: Record<string, McpCompleter> } = {},
  ): void {
    const { complete, ...descriptive } = metadata;
    const entry = buildTemplateEntry(
      uriTemplate,
      descriptive,
      async (args, ctx) => reader(args as { uri: string; variables: UriVariables }, ctx),
      'McpResourceService.registerTemplate',
      new Map(Object.entries(complete ?? {})),
      true,
    );
    const existing = this.templates.get(uriTemplate);
    if (existing && !existing.runtime) {
      throw new McpDefinitionError(
        `Resource template '${uriTemplate}' is declared by ${existing.source} and cannot be replaced at runtime`,
      );
    }
    if (existing) this.templates.unregister(uriTemplate);
    this.templates.register(entry);
    this.coalescer.schedule('notifications/resources/list_changed');
  }

  /** Removes a runtime resource template; false when there was none. */
  unregisterTemplate(uriTemplate: string): boolean {
    const existing = this.templates.get(uriTemplate);
    if (!existing?.runtime) return false;
    this.templates.unregister(uriTemplate);
    this.coalescer.schedule('notifications/resources/list_changed');
    return true;
  }

  /** True when a resource (declared or runtime) has this exact URI. */
  has(uri: string): boolean {
    return this.registry.has(uri);
  }
}
