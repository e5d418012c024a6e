import type { ChannelContext } from '../context/channel-context.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import type { McpPrincipal } from '../model/mcp-principal.js';
import type { McpResourceMetadata } from '../interfaces/mcp-resource-options.interface.js';
import type { McpToolOptions } from '../interfaces/mcp-tool-options.interface.js';
import type { McpResourceEntry } from '../registry/mcp-resource.registry.js';
import type { McpToolEntry } from '../registry/mcp-tool.registry.js';
import type { McpMethodFn } from './mcp-method.types.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';

/** A protocol era: `legacy` (2025 revisions: `initialize`, sessions) or `modern` (2026-07-28, stateless). */
export type McpExtensionEra = 'legacy' | 'modern';

/** The part of a request context an extension's visibility rules read. */
export interface McpCaller {
  /** What the client declared (`initialize` in the legacy era, the request's `_meta` in the modern one). */
  readonly clientCapabilities?: Readonly<Record<string, unknown>>;
  readonly auth?: McpPrincipal;
  readonly era?: McpExtensionEra;
}

/**
 * One method an extension contributes. The rules every contributed method may ask for
 * (`requiredScopes`, `rateLimited`) are applied by the method table, in one place, before `run`:
 * an extension never re-implements them.
 */
export interface McpExtensionMethod {
  readonly run: McpMethodFn;
  /** The eras that serve it. @default 'both' (no base revision names an extension's methods) */
  readonly eras?: McpExtensionEra | 'both';
  /** Scopes the caller's token needs (resource-server mode): 403 `insufficient_scope` without them. */
  readonly requiredScopes?: readonly string[];
  /**
   * Counted against one of the caller's rate limits: `true` (or `'toolCalls'`) its tool rate
   * limit (`toolRateLimit`), like a `tools/call`; `'taskRequests'` its task requests
   * (`tasks.pollRateLimit`, windows of their own, so polls neither use up the tool calls'
   * budget nor are free).
   */
  readonly rateLimited?: boolean | McpRateBudget;
}

/** The rate limit a contributed method counts against (`McpExtensionMethod.rateLimited`). */
export type McpRateBudget = 'toolCalls' | 'taskRequests';

/**
 * What one caller's list shows of a registry: `filter` keeps an entry (within the others'
 * filters: an entry is listed when every extension and the authorization keep it), `describe`
 * makes the item the caller gets from the one it would get otherwise.
 */
export interface McpShown<T> {
  readonly filter?: (entry: T) => boolean;
  readonly describe?: (entry: T, descriptor: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>;
}

/** Runs a tool's execution (its hooks and handler, given the context they should see) its own way. */
export type McpCallRunner = (
  execute: (context: McpRequestContext) => Promise<Record<string, unknown>>,
) => Promise<Record<string, unknown>>;

/**
 * Which of an extension's `tools/call` steps apply to one tool, decided once per tool
 * (`McpExtension.stepsFor`): a step that does not apply is never asked for a call of the tool.
 */
export interface McpToolSteps {
  /** Its `callable` (visibility) step applies: it may hide this tool from some caller. @default true */
  readonly callable?: boolean;
  /**
   * Its `runsCall` (task mode) step applies: `true` to every call of this tool, `{ whenParam }`
   * only to a call whose params carry that key (tasks: `task`, which a tool without task support
   * must refuse in 2025-11-25), `false` to none. @default true
   */
  readonly runsCall?: boolean | { readonly whenParam: string };
}

/**
 * The `tools/call` steps of one tool, every plugged extension's combined, made once per tool
 * (`McpExtensions.planOf`, kept in `McpExtensions.plans`): an absent step is one no extension
 * takes for this tool, so a plain tool's call asks no extension anything.
 */
export interface McpToolCallPlan {
  /** The visibility step: false answers the call as an unknown tool. Absent: visible to every caller. */
  readonly callable?: (caller: McpCaller) => boolean;
  /** The task mode step: a runner, or undefined to run the call in its request. Absent: always in its request. */
  readonly runsCall?: (params: Record<string, unknown>, ctx: ChannelContext) => McpCallRunner | undefined;
  /** `runsCall` is asked only for a call whose params carry this key. Absent: for every call. */
  readonly runsCallWhen?: string;
}

/** What an extension made of its part of a `subscriptions/listen` filter. */
export interface McpListened {
  /** The filter asked for some notification (a listen must ask for one). */
  readonly asked: boolean;
  /** What it honoured, merged into the acknowledgement's filter (`{ taskIds: [...] }`). */
  readonly honoured: Readonly<Record<string, unknown>>;
  /** Sends its notifications from now on, through `notify` (stamped there); the function returned stops them. */
  follow?(notify: (method: string, params: Record<string, unknown>) => void): () => void;
}

/** A tool as the explorer builds it, before it is registered. */
export interface McpToolDeclaration {
  readonly options: McpToolOptions;
  /** Its `tools/list` item, as declared so far. */
  readonly descriptor: Readonly<Record<string, unknown>>;
  /** `Class.method`, for definition errors. */
  readonly source: string;
}

/** What an extension makes of a declared tool: its descriptor, and what it keeps on the entry. */
export interface McpDeclaredTool {
  readonly descriptor: Readonly<Record<string, unknown>>;
  /** Kept on the registry entry under the extension's name (`entry.extensions[name]`). */
  readonly data?: unknown;
}

/** An exact resource as declared (a decorator, an `@McpApp`, or `McpResourceService.register`). */
export interface McpResourceDeclaration {
  readonly uri: string;
  readonly metadata: McpResourceMetadata;
  readonly handler: McpHandlerFn;
  /** Where it was declared, for definition errors. */
  readonly source: string;
}

/** A resource template as declared. */
export interface McpTemplateDeclaration {
  readonly uriTemplate: string;
  readonly metadata: McpResourceMetadata;
  readonly source: string;
}

/** A provider class the explorer scans once at startup, with its instance. */
export interface McpScannedProvider {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any class
  readonly classRef: Function;
  readonly instance: object;
}

/** A resource an extension finds on a provider class (class metadata), registered by the explorer. */
export interface McpDiscoveredResource extends McpResourceDeclaration {
  /** `@RequireScopes()` of what declared it. */
  readonly requiredScopes?: readonly string[];
}

/**
 * The contract through which a feature beside the base protocol (MCP Apps, tasks, skills...)
 * plugs into the core, instead of being threaded through it. An extension is a provider of the
 * module that hands itself to the method table once, when it is built
 * (`McpExtensionHost.plug(this)`); every member is optional, and the core asks each plugged extension
 * at one place each:
 *
 * - **protocol surface**: `methods()` (in the eras each names, under the rules each asks for)
 *   and `capabilities()` (what `initialize` and `server/discover` declare), both only while
 *   `present()`;
 * - **what each caller sees**: `toolsShownTo`, `resourcesShownTo` (list filters and the items'
 *   `_meta`), `callable`, the visibility step of the `tools/call` pipeline (visibility, then
 *   access, task mode, rate limit, validation, hooks, execution), and `runsCall`, its task mode step,
 *   each asked only for the tools `stepsFor` says it applies to (decided once per tool);
 * - **listens**: `listen`, its keys of a `subscriptions/listen` filter;
 * - **its metadata**: `declareTool`, `declareResource`, `declareTemplate` (checks and rewrites
 *   what is declared, from decorators or at runtime) and `discover` (its own class decorators).
 *
 * See docs/extensions.md.
 * @publicApi
 */
export interface McpExtension {
  /** Its identifier: the key of `capabilities.extensions` when it is one (`io.modelcontextprotocol/ui`). */
  readonly name: string;

  /** False while the feature is absent: its methods are not found, its capabilities not declared. @default always present */
  present?(): boolean;
  /** The methods it contributes, by name. */
  methods?(): Readonly<Record<string, McpExtensionMethod>>;
  /**
   * What it declares in an era's capabilities, given what the rest declares (`capabilities.extensions`
   * with its settings, say, or a 2025 capability it replaces in the modern era).
   */
  capabilities?(capabilities: Record<string, unknown>, era: McpExtensionEra): Record<string, unknown>;

  /** What a caller's `tools/list` shows; undefined leaves the list as it is. */
  toolsShownTo?(caller: McpCaller): McpShown<McpToolEntry> | undefined;
  /** What a caller's `resources/list` shows; undefined leaves the list as it is. */
  resourcesShownTo?(caller: McpCaller): McpShown<McpResourceEntry> | undefined;
  /** The visibility step of `tools/call`: false answers the call as an unknown tool. */
  callable?(tool: McpToolEntry, caller: McpCaller): boolean;

  /**
   * The task mode step of `tools/call` (after access, before the rate limit): how this call
   * runs. Undefined runs it in its request; a runner is handed the execution once the arguments
   * are valid (tasks: a task the client polls). Throws the protocol error of a call the tool does
   * not allow. The first extension that answers a runner runs the call. `ctx` is the request's
   * own context: the runner may run the call on another channel of it (`ctx.through`).
   */
  runsCall?(tool: McpToolEntry, params: Record<string, unknown>, ctx: ChannelContext): McpCallRunner | undefined;
  /**
   * Which of its `tools/call` steps (`callable`, `runsCall`) apply to `tool`, asked once per tool
   * entry, the first time it is called: what it answers must depend on the entry alone (what its
   * `declareTool` kept on it), never on the caller or on state that changes. A step that does not
   * apply is never asked for the tool's calls. @default every step it implements, for every call
   */
  stepsFor?(tool: McpToolEntry): McpToolSteps;
  /**
   * Its part of a `subscriptions/listen` filter (`notifications.taskIds`, its own keys): what it
   * honours and the notifications it then sends, or undefined when the filter names none of its
   * keys. Throws the protocol error of a value it refuses. Asked whether it is present or not: a
   * filter naming what a server without the feature does not have is answered as for an unknown one.
   */
  listen?(filter: Readonly<Record<string, unknown>>, ctx: McpRequestContext): Promise<McpListened | undefined>;
  /** Checks a declared tool and rewrites its descriptor; undefined leaves it as it is. Throws `McpDefinitionError`. */
  declareTool?(tool: McpToolDeclaration): McpDeclaredTool | undefined;
  /** Checks a declared resource and rewrites it (metadata, read handler). Throws `McpDefinitionError`. */
  declareResource?(resource: McpResourceDeclaration): McpResourceDeclaration;
  /** Checks a declared template. Throws `McpDefinitionError`. */
  declareTemplate?(template: McpTemplateDeclaration): void;
  /** The resources its class decorators declare on one provider, found once at startup. */
  discover?(provider: McpScannedProvider): Promise<readonly McpDiscoveredResource[]>;
}
