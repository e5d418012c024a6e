/**
 * The origins a UI resource may reach (MCP Apps `McpUiResourceCsp`). Each entry is an origin,
 * `scheme://host[:port]` (`https`, `http`, `wss` or `ws`), the host possibly starting with `*.`;
 * anything else fails startup. Empty or omitted: nothing outside the view itself.
 * @publicApi
 */
export interface McpUiResourceCsp {
  /** Origins for `fetch`, XHR and WebSocket (CSP `connect-src`). */
  connectDomains?: string[];
  /** Origins for scripts, styles, images, fonts and media (CSP `script-src`, `style-src`, `img-src`, `font-src`, `media-src`). */
  resourceDomains?: string[];
  /** Origins for nested iframes (CSP `frame-src`; none by default). */
  frameDomains?: string[];
  /** Allowed base URIs of the document (CSP `base-uri`; the view's own origin by default). */
  baseUriDomains?: string[];
}

/**
 * Browser features a UI resource asks for (MCP Apps `McpUiResourcePermissions`); each is an
 * empty object when asked. Hosts may refuse them: a view uses feature detection.
 * @publicApi
 */
export interface McpUiResourcePermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/**
 * How a host renders a UI resource (MCP Apps `McpUiResourceMeta`, sent as `_meta.ui` on the
 * resource's `resources/list` entry and on each content item of its `resources/read`).
 * @publicApi
 */
export interface McpUiResourceMeta {
  /** What the view may load and reach; the host builds its Content Security Policy from it. */
  csp?: McpUiResourceCsp;
  permissions?: McpUiResourcePermissions;
  /** A dedicated sandbox origin for the view; its format is the host's (see its documentation). */
  domain?: string;
  /** `true` asks the host for a visible border and background, `false` for none; omitted: the host decides. */
  prefersBorder?: boolean;
}

/** Who may use a tool (MCP Apps): the model (the agent), the app (a view of this server), or both. @publicApi */
export type McpUiToolVisibility = 'model' | 'app';

/**
 * The MCP Apps side of a tool (`_meta.ui`): the UI resource a host renders its results with, and
 * who may use it.
 * @publicApi
 */
export interface McpUiToolMeta {
  /** A UI resource of this server (`ui://...`); one that does not exist fails startup. */
  resourceUri?: string;
  /**
   * `['model', 'app']` when omitted. `['app']`: callable by this server's views only, hidden
   * from the model (a host without MCP Apps neither sees nor calls it).
   */
  visibility?: McpUiToolVisibility[];
}
