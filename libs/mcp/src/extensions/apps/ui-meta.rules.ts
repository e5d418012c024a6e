import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import type { McpUiResourceMeta, McpUiToolMeta } from '../../interfaces/mcp-ui-meta.interface.js';
import { hasUriScheme } from '../../model/uri-scheme.js';
import { isUiUri } from './mcp-apps.constants.js';
import { INVALID_UI_META } from './mcp-apps.messages.js';
import { isObject } from '../../model/is-object.js';

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
const RESOURCE_META_KEYS = ['csp', 'permissions', 'domain', 'prefersBorder'] as const;
const TOOL_META_KEYS = ['resourceUri', 'visibility'] as const;
const VISIBILITIES = ['model', 'app'] as const;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/**
 * A CSP source a host can put in a directive as it is: an origin (no path, no query), the host
 * possibly starting with a `*.` wildcard. Keywords (`'self'`, `'unsafe-inline'`), `*`, `data:`
 * and anything with spaces or `;` (which would add directives of its own) do not match.
 */
const ORIGIN = new RegExp(
  `^(?:https?|wss?)://(?:(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])(?::(\\d{1,5}|\\*))?$`,
  'i',
);

function fail(where: string, reason: string): never {
  throw new McpDefinitionError(INVALID_UI_META(where, reason));
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], what: string, where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(where, `${what} has no '${key}' (allowed: ${allowed.join(', ')})`);
  }
}

function checkedOrigins(value: unknown, key: string, where: string): string[] {
  if (!Array.isArray(value)) fail(where, `csp.${key} must be an array of origins`);
  return value.map((origin) => {
    if (typeof origin !== 'string' || !ORIGIN.test(origin)) {
      fail(
        where,
        `csp.${key} holds ${JSON.stringify(origin)}, which is not an origin: write scheme://host[:port] (https, http, wss or ws; the host may start with '*.'), without a path`,
      );
    }
    const port = ORIGIN.exec(origin)![1];
    if (port !== undefined && port !== '*' && Number(port) > 65_535)
      fail(where, `csp.${key}: ${origin} has no valid port`);
    return origin;
  });
}

/**
 * Checks the `_meta.ui` of a UI resource against what MCP Apps defines (the keys, the origins of
 * its CSP, empty permission objects, a string domain, a boolean border) and returns a frozen
 * copy to send. Anything else fails startup, naming where it was declared.
 */
export function checkedUiResourceMeta(value: unknown, where: string): Readonly<McpUiResourceMeta> {
  if (!isObject(value)) fail(where, 'ui must be an object');
  onlyKeys(value, RESOURCE_META_KEYS, 'ui', where);
  const meta: McpUiResourceMeta = {};
  if (value.csp !== undefined) {
    if (!isObject(value.csp)) fail(where, 'ui.csp must be an object');
    onlyKeys(value.csp, CSP_KEYS, 'ui.csp', where);
    const csp: Record<string, string[]> = {};
    for (const key of CSP_KEYS) {
      if (value.csp[key] !== undefined) csp[key] = checkedOrigins(value.csp[key], key, where);
    }
    meta.csp = csp;
  }
  if (value.permissions !== undefined) {
    if (!isObject(value.permissions)) fail(where, 'ui.permissions must be an object');
    onlyKeys(value.permissions, PERMISSIONS, 'ui.permissions', where);
    const permissions: Record<string, Record<string, never>> = {};
    for (const [name, asked] of Object.entries(value.permissions)) {
      if (asked === undefined) continue;
      if (!isObject(asked) || Object.keys(asked).length > 0) {
        fail(where, `ui.permissions.${name} must be an empty object ({}) to ask for it`);
      }
      permissions[name] = {};
    }
    meta.permissions = permissions;
  }
  if (value.domain !== undefined) {
    if (typeof value.domain !== 'string' || !/^[^\s;,'"]+$/.test(value.domain)) {
      fail(where, 'ui.domain must be a non-empty string without spaces, quotes, commas or semicolons');
    }
    meta.domain = value.domain;
  }
  if (value.prefersBorder !== undefined) {
    if (typeof value.prefersBorder !== 'boolean') fail(where, 'ui.prefersBorder must be true or false');
    meta.prefersBorder = value.prefersBorder;
  }
  return deepFreeze(meta);
}

/**
 * Checks the `ui` of a tool: a `ui://` `resourceUri` (whether it exists is checked once every
 * resource is registered), and a non-empty `visibility` of `model` and `app`, each once.
 */
export function checkedToolUiMeta(value: unknown, where: string): Readonly<McpUiToolMeta> {
  if (!isObject(value)) fail(where, 'ui must be an object');
  onlyKeys(value, TOOL_META_KEYS, 'ui', where);
  if (value.resourceUri === undefined && value.visibility === undefined) {
    fail(where, 'ui needs a resourceUri, a visibility or both');
  }
  const meta: McpUiToolMeta = {};
  if (value.resourceUri !== undefined) {
    if (!isUiUri(value.resourceUri) || !hasUriScheme(value.resourceUri)) {
      fail(where, `ui.resourceUri must be a ui:// URI, got ${JSON.stringify(value.resourceUri)}`);
    }
    meta.resourceUri = value.resourceUri;
  }
  if (value.visibility !== undefined) {
    const visibility = value.visibility;
    if (
      !Array.isArray(visibility) ||
      visibility.length === 0 ||
      !visibility.every((who) => (VISIBILITIES as readonly unknown[]).includes(who)) ||
      new Set(visibility).size !== visibility.length
    ) {
      fail(where, `ui.visibility must list 'model', 'app' or both, each once, got ${JSON.stringify(visibility)}`);
    }
    meta.visibility = [...(visibility as McpUiToolMeta['visibility'] & unknown[])];
  }
  return deepFreeze(meta);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
