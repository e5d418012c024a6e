import { Injectable } from '@nestjs/common';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { DUPLICATE_RESOURCE, INVALID_RESOURCE_URI } from '../mcp.messages.js';
import type { McpResourceMetadata } from '../interfaces/mcp-resource-options.interface.js';
import { EntryRegistry } from './entry-registry.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import { hasUriScheme } from '../model/uri-scheme.js';

/** A resource ready to serve. */
export interface McpResourceEntry {
  readonly uri: string;
  /** The `resources/list` item (`name` defaults to the URI, see docs/resources.md). */
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly mimeType?: string;
  readonly handler: McpHandlerFn;
  /** Scopes a caller's token needs to use it (`@RequireScopes()`, resource-server mode). */
  readonly requiredScopes?: readonly string[];
  readonly source: string;
  /** Registered through `McpResourceService` (replaceable and removable at runtime). */
  readonly runtime?: boolean;
  /** Its caching hints (modern era), when it overrides the module's. */
  readonly cache?: McpCacheHints;
  /**
   * Readable (and subscribable) but left out of `resources/list`: the supporting files of a
   * skill, which a host finds in the skill's manifest, not in the server's listing.
   */
  readonly unlisted?: boolean;
  /**
   * The instance that registered it, when that is another instance
   * (docs/decisions/0005-several-instances-share-one-backend.md): reads are
   * forwarded there. Undefined for resources of this instance.
   */
  readonly origin?: string;
}

const OPTIONAL_FIELDS = ['title', 'description', 'mimeType', 'icons', 'annotations', 'size', '_meta'] as const;

/**
 * Builds the wire descriptor of a resource (`key: 'uri'`) or a template (`key: 'uriTemplate'`)
 * from its metadata; `name` defaults to the URI or template
 * (docs/decisions/0007-resource-names-and-paginated-lists.md).
 */
export function buildResourceDescriptor(
  address: string,
  metadata: McpResourceMetadata,
  key: 'uri' | 'uriTemplate' = 'uri',
): Record<string, unknown> {
  const descriptor: Record<string, unknown> = { [key]: address, name: metadata.name ?? address };
  for (const field of OPTIONAL_FIELDS) {
    if (metadata[field] !== undefined) descriptor[field] = metadata[field];
  }
  return descriptor;
}

/**
 * The resources of this server, by exact (case-sensitive) URI. Declared and runtime resources
 * live here alike; list and read see both.
 * @publicApi
 */
@Injectable()
export class McpResourceRegistry extends EntryRegistry<McpResourceEntry> {
  private dynamic = false;
  private unlistedResources = 0;

  /** True while some entry is left out of `resources/list` (lists without one need no filter). */
  get hasUnlisted(): boolean {
    return this.unlistedResources > 0;
  }

  /** True once resources exist or have been registered at runtime (the feature is in use). */
  get inUse(): boolean {
    return this.dynamic || this.size > 0;
  }

  /**
   * Marks the feature in use although no resource may exist yet: a part whose resources come and
   * go (skills registered at runtime) serves `resources/*` from the start and while it has none,
   * so the capability a client saw at `initialize` keeps answering.
   */
  markInUse(): void {
    this.dynamic = true;
  }

  override register(entry: McpResourceEntry): void {
    super.register(entry);
    if (entry.runtime) this.dynamic = true;
    if (entry.unlisted) this.unlistedResources++;
  }

  override unregister(uri: string): boolean {
    const unlisted = this.get(uri)?.unlisted === true;
    const removed = super.unregister(uri);
    if (removed && unlisted) this.unlistedResources--;
    return removed;
  }

  protected keyOf(entry: McpResourceEntry): string {
    return entry.uri;
  }

  protected duplicate(entry: McpResourceEntry, existing: McpResourceEntry): string {
    return DUPLICATE_RESOURCE(entry.uri, entry.source, existing.source);
  }

  protected override validate(entry: McpResourceEntry): void {
    if (!hasUriScheme(entry.uri)) throw new McpDefinitionError(INVALID_RESOURCE_URI(String(entry.uri), entry.source));
  }
}
