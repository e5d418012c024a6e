/** What the test host page exposes to the test, as `window.appsHost`. */
export interface AppsHostApi {
  /** Connects the host's MCP client (declaring MCP Apps) to the server. */
  connect(config: AppsHostConfig): Promise<AppsHostConnected>;
  /**
   * Does what a host does when the model calls a tool linked to a UI resource: calls it, reads
   * the resource, renders it in the sandbox, and hands the view the input and the result.
   */
  show(tool: string, args?: Record<string, unknown>): Promise<AppsHostShown>;
  /** Subscribes to a resource; its `resources/updated` notifications are recorded. */
  subscribe(uri: string): Promise<void>;
  /** Calls a tool as the model would (no view involved). */
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
  readonly record: AppsHostRecord;
}

export interface AppsHostConfig {
  /** The server's MCP endpoint (same origin as the host page). */
  endpoint: string;
  /** The sandbox proxy page, on another origin than the host page. */
  sandboxUrl: string;
}

export interface AppsHostConnected {
  /** The server's capabilities, as `initialize` answered them. */
  serverCapabilities: Record<string, unknown>;
  /** The tools the model would see: every listed tool that is not app-only. */
  modelTools: string[];
  /** Every listed tool (the host sees app-only ones too). */
  tools: string[];
}

export interface AppsHostShown {
  uri: string;
  /** The `_meta.ui` the host rendered with (the content item's, else the listing's). */
  ui: Record<string, unknown> | undefined;
  mimeType: string | undefined;
}

/** What the host saw happen, for the test to check. */
export interface AppsHostRecord {
  /** Tools the view called through the bridge, in order. */
  appToolCalls: string[];
  /** Tool calls from the view that the host refused (not visible to apps). */
  refusedAppToolCalls: string[];
  /** How many `notifications/resources/list_changed` the bridge forwarded to the view. */
  listChangedForwarded: number;
  /** URIs of the `notifications/resources/updated` the host received. */
  updated: string[];
  /** Errors the host ran into (shown to the test rather than thrown in the page). */
  errors: string[];
}

/** The host's messages to the sandbox proxy and back (MCP Apps reserves the `ui/notifications/sandbox-` prefix). */
export const SANDBOX_METHOD_PREFIX = 'ui/notifications/sandbox-';
