import { Injectable } from '@nestjs/common';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { McpResourceEntry } from '../registry/mcp-resource.registry.js';
import type { McpToolEntry } from '../registry/mcp-tool.registry.js';
import type { ChannelContext } from '../context/channel-context.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import type {
  McpCallRunner,
  McpCaller,
  McpDeclaredTool,
  McpExtension,
  McpExtensionEra,
  McpListened,
  McpResourceDeclaration,
  McpScannedProvider,
  McpShown,
  McpDiscoveredResource,
  McpTemplateDeclaration,
  McpToolCallPlan,
  McpToolDeclaration,
} from './mcp-extension.interface.js';

type Filter<T> = (entry: T) => boolean;
type Describe<T> = (entry: T) => Readonly<Record<string, unknown>>;

/** What a caller's list shows, every extension's rules and the base filter combined. */
export interface McpListView<T> {
  readonly filter?: Filter<T>;
  /** Undefined: every item as registered. */
  readonly describe?: Describe<T>;
}

/**
 * The extensions plugged into this module, and the one place each of their rules is combined:
 * the declaration hooks (explorer and runtime registration), the list views and the `tools/call`
 * visibility and task mode steps. Extensions are added while the module is built (`McpExtensionHost.plug`), before
 * discovery and before any request. With none plugged, each call costs a loop over nothing.
 */
/** A plan's visibility step: whether the tool exists for `caller`. */
export function planAdmits(plan: McpToolCallPlan, caller: McpCaller): boolean {
  return !plan.callable || plan.callable(caller);
}

/** A plan's task mode step: its runner for this call, or undefined to run it in its request. */
export function planRunner(
  plan: McpToolCallPlan,
  params: Record<string, unknown>,
  ctx: ChannelContext,
): McpCallRunner | undefined {
  const when = plan.runsCallWhen;
  return plan.runsCall && (when === undefined || params[when] !== undefined) ? plan.runsCall(params, ctx) : undefined;
}

@Injectable()
export class McpExtensions {
  private readonly plugged: McpExtension[] = [];
  /**
   * The `tools/call` plan of each tool entry made so far (`planOf`): a tool's call after its
   * first costs a map lookup and no call into an extension that takes no part in it. An entry is immutable, so its plan is too; a tool registered again
   * is a new entry, with a plan of its own.
   */
  plans = new WeakMap<McpToolEntry, McpToolCallPlan>();

  /** Adds an extension; a second one with its name is a definition error. */
  add(extension: McpExtension): void {
    if (this.plugged.some((other) => other.name === extension.name)) {
      throw new McpDefinitionError(`Two MCP extensions are named '${extension.name}'`);
    }
    this.plugged.push(extension);
    // Plans made before (none, outside tests: extensions are plugged before any request) lack it.
    this.plans = new WeakMap();
  }

  /**
   * The `tools/call` steps of `tool`, made once per entry from every plugged extension's
   * `stepsFor` and kept in `plans`: a step no extension takes for this tool is absent.
   */
  planOf(tool: McpToolEntry): McpToolCallPlan {
    let plan = this.plans.get(tool);
    if (!plan) this.plans.set(tool, (plan = this.makePlan(tool)));
    return plan;
  }

  /** Every plugged extension, in the order they were added. */
  all(): readonly McpExtension[] {
    return this.plugged;
  }

  /** A declared tool through every extension: its descriptor, and the data each keeps on the entry. */
  declareTool(tool: McpToolDeclaration): {
    descriptor: Readonly<Record<string, unknown>>;
    extensions?: Record<string, unknown>;
  } {
    let descriptor = tool.descriptor;
    let extensions: Record<string, unknown> | undefined;
    for (const extension of this.plugged) {
      const declared: McpDeclaredTool | undefined = extension.declareTool?.({ ...tool, descriptor });
      if (!declared) continue;
      descriptor = declared.descriptor;
      if (declared.data !== undefined) extensions = { ...extensions, [extension.name]: declared.data };
    }
    return extensions ? { descriptor, extensions } : { descriptor };
  }

  /** A declared resource through every extension. */
  declareResource(resource: McpResourceDeclaration): McpResourceDeclaration {
    let declared = resource;
    for (const extension of this.plugged) if (extension.declareResource) declared = extension.declareResource(declared);
    return declared;
  }

  /** A declared template through every extension. */
  declareTemplate(template: McpTemplateDeclaration): void {
    for (const extension of this.plugged) extension.declareTemplate?.(template);
  }

  /** What every extension finds on one provider class. */
  async discover(provider: McpScannedProvider): Promise<McpDiscoveredResource[]> {
    const found: McpDiscoveredResource[] = [];
    for (const extension of this.plugged) if (extension.discover) found.push(...(await extension.discover(provider)));
    return found;
  }

  /** What a caller's `tools/list` shows: `base` (the authorization filter) and every extension's view. */
  toolsShownTo(caller: McpCaller, base?: Filter<McpToolEntry>): McpListView<McpToolEntry> {
    return this.view(base, (extension) => extension.toolsShownTo?.(caller));
  }

  /** What a caller's `resources/list` shows: `base` and every extension's view. */
  resourcesShownTo(caller: McpCaller, base?: Filter<McpResourceEntry>): McpListView<McpResourceEntry> {
    return this.view(base, (extension) => extension.resourcesShownTo?.(caller));
  }

  /** The visibility step of `tools/call`: whether the tool exists for this caller (its plan's `callable`). */
  callable(tool: McpToolEntry, caller: McpCaller): boolean {
    return planAdmits(this.planOf(tool), caller);
  }

  /**
   * The task mode step of `tools/call` (its plan's `runsCall`): the runner of the first extension
   * that takes the call (each may refuse it by throwing), or undefined to run it in its request.
   */
  runsCall(tool: McpToolEntry, params: Record<string, unknown>, ctx: ChannelContext): McpCallRunner | undefined {
    return planRunner(this.planOf(tool), params, ctx);
  }

  private makePlan(tool: McpToolEntry): McpToolCallPlan {
    const visibility: McpExtension[] = [];
    const taskModes: { readonly extension: McpExtension; readonly whenParam?: string }[] = [];
    for (const extension of this.plugged) {
      const steps = extension.stepsFor?.(tool);
      if (extension.callable && steps?.callable !== false) visibility.push(extension);
      const runs = steps?.runsCall ?? true;
      if (extension.runsCall && runs !== false) {
        taskModes.push({ extension, whenParam: runs === true ? undefined : runs.whenParam });
      }
    }
    let callable: McpToolCallPlan['callable'];
    if (visibility.length === 1) {
      const [only] = visibility;
      callable = (caller) => only.callable!(tool, caller);
    } else if (visibility.length > 1) {
      callable = (caller) => visibility.every((extension) => extension.callable!(tool, caller));
    }
    if (taskModes.length === 0) return { callable };
    if (taskModes.length === 1) {
      const [{ extension, whenParam }] = taskModes;
      return {
        callable,
        runsCall: (params, ctx) => extension.runsCall!(tool, params, ctx),
        runsCallWhen: whenParam,
      };
    }
    return {
      callable,
      runsCall: (params, ctx) => {
        for (const { extension, whenParam } of taskModes) {
          if (whenParam !== undefined && params[whenParam] === undefined) continue;
          const runner = extension.runsCall!(tool, params, ctx);
          if (runner) return runner;
        }
        return undefined;
      },
    };
  }

  /** What every extension makes of a `subscriptions/listen` filter, in the order they were plugged in. */
  async listen(filter: Readonly<Record<string, unknown>>, ctx: McpRequestContext): Promise<McpListened[]> {
    const listened: McpListened[] = [];
    for (const extension of this.plugged) {
      const own = await extension.listen?.(filter, ctx);
      if (own) listened.push(own);
    }
    return listened;
  }

  /** An era's capabilities through every present extension. */
  capabilities(capabilities: Record<string, unknown>, era: McpExtensionEra): Record<string, unknown> {
    let declared = capabilities;
    for (const extension of this.plugged) {
      if (extension.capabilities && extension.present?.() !== false) declared = extension.capabilities(declared, era);
    }
    return declared;
  }

  private view<T extends { readonly descriptor: Readonly<Record<string, unknown>> }>(
    base: Filter<T> | undefined,
    shownBy: (extension: McpExtension) => McpShown<T> | undefined,
  ): McpListView<T> {
    let filter = base;
    let describe: Describe<T> | undefined;
    for (const extension of this.plugged) {
      const shown = shownBy(extension);
      if (!shown) continue;
      if (shown.filter) {
        const own = shown.filter;
        const before = filter;
        filter = before ? (entry) => own(entry) && before(entry) : own;
      }
      if (shown.describe) {
        const own = shown.describe;
        const before = describe;
        describe = (entry) => own(entry, before ? before(entry) : entry.descriptor);
      }
    }
    return { filter, describe };
  }
}

/** `capabilities` with `extensions[name]` set to `settings` (the other extensions kept). */
export function withExtensionCapability(
  capabilities: Record<string, unknown>,
  name: string,
  settings: Record<string, unknown>,
): Record<string, unknown> {
  const extensions = capabilities.extensions;
  const others = typeof extensions === 'object' && extensions !== null ? extensions : {};
  return { ...capabilities, extensions: { ...others, [name]: settings } };
}
