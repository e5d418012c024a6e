import type { McpIcon } from './mcp-icon.interface.js';

/** Descriptive fields of a resource. @publicApi */
export interface McpResourceMetadata {
  /** Display name; defaults to the URI in `resources/list`. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
}

/** Options of `@McpResource()`. @publicApi */
export interface McpResourceOptions extends McpResourceMetadata {
  /** The exact URI, with a scheme (`system://info`, `file:///README.md`). */
  uri: string;
}
