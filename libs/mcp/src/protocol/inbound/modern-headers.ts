import type { IncomingHttpHeaders } from 'node:http';
import { McpHeaderMismatchException } from '../../errors/mcp-modern.exceptions.js';
import { METHOD_HEADER, NAME_HEADER, PROTOCOL_VERSION_HEADER } from '../../mcp.constants.js';
import type { JsonRpcRequest } from '../../model/json-rpc.js';
import type { McpModernEnvelope } from './modern-envelope.js';
import type { McpHeaderParam } from '../../registry/tool-header-params.js';
import { isObject } from '../../model/is-object.js';

/** Methods whose `Mcp-Name` header mirrors a body field (the task methods: the tasks extension's routing header). */
const NAMED: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** Where the `Mcp-Param-*` declarations of a tool are found, by its name (the tool registry). */
export interface HeaderParamsByTool {
  get(tool: string): { readonly headerParams?: readonly McpHeaderParam[] } | undefined;
}

/** `=?base64?<value>?=`: a header value carried as the Base64 of its UTF-8 bytes. */
const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const INTEGER = /^-?\d+(?:\.0+)?$/;

/**
 * Checks the request metadata headers of a modern Streamable HTTP request against its body (MCP
 * 2026-07-28 "Server Validation"): `MCP-Protocol-Version` equals the `_meta` version,
 * `Mcp-Method` the method, `Mcp-Name` the tool or prompt name or resource URI, and each
 * `Mcp-Param-*` declared by the tool its argument. Header names are case-insensitive (Node lower
 * cases them), values case-sensitive; `Mcp-Name` and `Mcp-Param-*` may use the Base64 sentinel
 * form. Any failure is `-32020` HeaderMismatch (HTTP 400).
 *
 * @param tools the tools by name, with their `Mcp-Param-*` declarations (the tool registry).
 */
export function checkModernHeaders(
  headers: IncomingHttpHeaders,
  request: JsonRpcRequest,
  envelope: McpModernEnvelope,
  tools: HeaderParamsByTool,
): void {
  // Compared as they came: a header equal to the body is one value (the copies of a repeated
  // one are joined or collected), and only one that differs is looked at again.
  if (headers[PROTOCOL_VERSION_HEADER] !== envelope.protocolVersion) {
    throw unexpected(headers, PROTOCOL_VERSION_HEADER, envelope.protocolVersion);
  }
  if (headers[METHOD_HEADER] !== request.method) throw unexpected(headers, METHOD_HEADER, request.method);

  const params = request.params ?? {};
  const field = NAMED[request.method];
  if (field === undefined) return;
  const bodyName = params[field];
  // A body without the field is the dispatcher's -32602; the header has nothing to match then.
  if (typeof bodyName !== 'string') return;
  const name = decoded(headers, NAME_HEADER);
  if (name !== bodyName) throw mismatch(NAME_HEADER, name, bodyName);

  if (request.method === 'tools/call') {
    const declared = tools.get(bodyName)?.headerParams;
    if (declared?.length) checkParamHeaders(headers, declared, isObject(params.arguments) ? params.arguments : {});
  }
}

/** Each declared `Mcp-Param-*` header is present exactly when its argument is, and equal to it. */
function checkParamHeaders(
  headers: IncomingHttpHeaders,
  declared: readonly McpHeaderParam[],
  args: Record<string, unknown>,
): void {
  for (const param of declared) {
    const value = valueAt(args, param.path);
    const header = decoded(headers, param.header);
    if (value === undefined || value === null) {
      if (header !== undefined) throw mismatch(param.header, header, 'no value');
      continue;
    }
    if (header === undefined || !matches(param.type, header, value)) throw mismatch(param.header, header, value);
  }
}

function matches(type: McpHeaderParam['type'], header: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return header === value;
    case 'boolean':
      return header === String(value) && typeof value === 'boolean';
    case 'integer':
      // Compared as numbers: "42.0" and 42 are the same argument.
      return typeof value === 'number' && INTEGER.test(header) && Number(header) === value;
  }
}

function valueAt(args: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** A header's one value: a repeated header (Node joins or collects the copies) is malformed. */
function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) throw mismatch(name, value.join(', '), 'one value');
  return value;
}

/** The refusal of a header that is not `expected` (a repeated one is refused for that, by `single`). */
function unexpected(headers: IncomingHttpHeaders, name: string, expected: string): McpHeaderMismatchException {
  return mismatch(name, single(headers, name), expected);
}

/** A header value with its Base64 sentinel form decoded; a malformed sentinel is a mismatch. */
function decoded(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = single(headers, name);
  if (value === undefined) return undefined;
  const sentinel = SENTINEL.exec(value);
  if (!sentinel) return value;
  if (!BASE64.test(sentinel[1])) throw mismatch(name, value, 'valid Base64 in the =?base64?…?= form');
  return Buffer.from(sentinel[1], 'base64').toString('utf8');
}

function mismatch(header: string, got: string | undefined, expected: unknown): McpHeaderMismatchException {
  const shown = (value: unknown) =>
    value === undefined ? 'missing' : JSON.stringify(typeof value === 'string' ? value.slice(0, 128) : value);
  return new McpHeaderMismatchException(`Header ${canonical(header)} is ${shown(got)}; expected ${shown(expected)}`);
}

/** `mcp-param-region` → `Mcp-Param-Region`, for messages. */
const canonical = (header: string): string =>
  header.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
