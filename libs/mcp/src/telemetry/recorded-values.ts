import { createHash } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';
import { ERROR_TYPE_OTHER } from './semconv.js';

/**
 * What the server serves, asked before a client's words become a span name or an attribute: a
 * method the server has no handler for is `_OTHER` (as the MCP conventions record an unknown
 * method), and a tool or prompt name is recorded only once it names one that exists. Anything else
 * would let each client add series to every metric and names to every trace backend.
 */
export interface McpTelemetryCatalog {
  /** True for a method (request or notification) the server handles. */
  servesMethod(method: string): boolean;
  hasTool(name: string): boolean;
  hasPrompt(name: string): boolean;
}

/**
 * The notifications a client may send that the server knows, besides the methods of its table.
 * (`notifications/cancelled` and `notifications/initialized` act; the others are accepted and
 * ignored, but they are MCP's own names, not the client's invention.)
 */
const CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/tasks/status',
]);

/** A catalog that knows the MCP notifications and nothing else (a telemetry built outside a module). */
export const CLIENT_NOTIFICATIONS_ONLY: McpTelemetryCatalog = {
  servesMethod: (method) => CLIENT_NOTIFICATIONS.has(method),
  hasTool: () => false,
  hasPrompt: () => false,
};

/** Builds the module's catalog from its method table and registries. */
export function telemetryCatalog(
  servesMethod: (method: string) => boolean,
  hasTool: (name: string) => boolean,
  hasPrompt: (name: string) => boolean,
): McpTelemetryCatalog {
  return {
    servesMethod: (method) => CLIENT_NOTIFICATIONS.has(method) || servesMethod(method),
    hasTool,
    hasPrompt,
  };
}

/** The method as recorded: itself when served, else `_OTHER`. */
export function recordedMethod(catalog: McpTelemetryCatalog, method: string): string {
  return catalog.servesMethod(method) ? method : ERROR_TYPE_OTHER;
}

/** The default of `telemetry.maxAttributeLength`: a tool name or a URI fits, a payload does not. */
export const DEFAULT_MAX_ATTRIBUTE_LENGTH = 1024;

/**
 * `value` cut to at most `max` UTF-16 units, the cut marked with `…`, never splitting a surrogate
 * pair (a lone surrogate would not encode in the exporters' UTF-8).
 */
export function bounded(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - 1);
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…`;
}

/** Every string (and string array element) of `attributes` bounded to `max`, in place. */
export function boundAttributes(attributes: Attributes, max: number): Attributes {
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value === 'string') {
      if (value.length > max) attributes[key] = bounded(value, max);
    } else if (Array.isArray(value) && value.some((item) => typeof item === 'string' && item.length > max)) {
      attributes[key] = (value as unknown[]).map((item) => (typeof item === 'string' ? bounded(item, max) : item));
    }
  }
  return attributes;
}

/**
 * How `mcp.session.id` is recorded (`telemetry.sessionIds`): without authorization a session id is
 * the only credential of its session, so it never leaves the process in clear unless asked.
 */
export type McpSessionIdRecording = 'digest' | 'clear' | 'none';

/**
 * The recorded form of a session id: `digest` is the first 16 bytes (32 hex digits) of its plain
 * SHA-256. Session ids carry 192 random bits, so the digest cannot be turned back into the id or
 * found by trying ids, and being unkeyed it is the same on every instance and after a restart, and
 * an operator holding an id (from a client's log) computes its digest with one command to find its
 * spans. A key would add a secret to manage and nothing against an id that cannot be guessed.
 */
export function recordedSessionId(mode: McpSessionIdRecording, id: string): string | undefined {
  switch (mode) {
    case 'none':
      return undefined;
    case 'clear':
      return id;
    case 'digest':
      return sessionIdDigest(id);
  }
}

/** `sha256(id)` as hex, its first 32 digits. */
export const sessionIdDigest = (id: string): string => createHash('sha256').update(id).digest('hex').slice(0, 32);
