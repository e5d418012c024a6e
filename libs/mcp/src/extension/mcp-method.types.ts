import type { ChannelContext } from '../context/channel-context.js';
import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';

/**
 * One JSON-RPC method of the protocol core. `params` is always an object here; `ctx` is the
 * request's own context, whose channel a method may swap (`ctx.through`: a task's).
 */
export type McpMethodFn = (
  params: Record<string, unknown>,
  ctx: ChannelContext,
  dispatch: McpDispatchContext,
) => Promise<Record<string, unknown>>;

/** A group of methods (`tools/*`, `resources/*`, ...) contributed to the dispatcher. */
export interface McpMethodGroup {
  /** Method name → implementation. */
  methods(): Record<string, McpMethodFn>;
  /** The capability this group declares in `initialize`, when the feature is present. */
  capability?(): [name: string, value: Record<string, unknown>] | undefined;
  /** False while the feature is absent: its methods are then not found. @default always present */
  available?(): boolean;
}
