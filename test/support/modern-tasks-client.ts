/**
 * A client of the tasks extension (MCP 2026-07-28) over raw Streamable HTTP, for exact wire checks
 * (tasks-ext-client.e2e-spec.ts drives the same tasks with the official client). Every request carries the
 * modern `_meta` and the metadata headers the extension asks for (`Mcp-Method`, and `Mcp-Name`:
 * the tool or prompt name, the resource URI, or the task id of `tasks/*`).
 */
import { parseSse, rawPost, type RawResponse } from './raw-http.js';
import { until } from './until.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Client capabilities that declare the extension (and elicitation, for tasks that ask). */
export const WITH_TASKS = { elicitation: {}, sampling: {}, extensions: { [TASKS_EXTENSION]: {} } };

export interface ModernAnswer extends RawResponse {
  /** The JSON-RPC message that answers the request (from a JSON body or the last SSE event). */
  readonly message: { id?: unknown; result?: any; error?: { code: number; message: string; data?: any } };
  /** Every JSON-RPC message of an SSE answer, in order. */
  readonly messages: any[];
}

export interface ModernRequestOptions {
  /** The request's client capabilities. @default WITH_TASKS */
  capabilities?: Record<string, unknown>;
  /** Headers over the computed ones. */
  headers?: Record<string, string>;
  /** Accept: JSON only by default (polls); `sse` for answers that stream. */
  accept?: 'json' | 'sse';
}

let nextId = 1;

const NAMED: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** One modern request on its own POST. */
export async function modernRequest(
  endpoint: string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRequestOptions = {},
): Promise<ModernAnswer> {
  const id = nextId++;
  const nameField = NAMED[method];
  const name = nameField ? params[nameField] : undefined;
  const response = await rawPost(
    endpoint,
    {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? WITH_TASKS,
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-wire', version: '1.0.0' },
        },
      },
    },
    {
      accept: options.accept === 'sse' ? 'application/json, text/event-stream' : 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...options.headers,
    },
  );
  const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    ? parseSse(response.text).map((event) => JSON.parse(event.data))
    : response.json !== undefined
      ? [response.json]
      : [];
  const message = messages.findLast((candidate) => candidate?.id === id) ?? messages.at(-1) ?? {};
  return { ...response, message, messages };
}

/** The result of a request that must succeed. */
export async function modernResult(
  endpoint: string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRequestOptions = {},
): Promise<any> {
  const answer = await modernRequest(endpoint, method, params, options);
  if (!answer.message.result) {
    throw new Error(`${method} failed: HTTP ${answer.status} ${JSON.stringify(answer.message.error ?? answer.text)}`);
  }
  return answer.message.result;
}

/** Polls `tasks/get` (every 20 ms, bounded) until the task's status is one of `statuses`. */
export async function pollUntil(
  endpoint: string,
  taskId: string,
  statuses: readonly string[],
  timeoutMs = 5_000,
  options: ModernRequestOptions = {},
): Promise<any> {
  let task: any;
  await until(
    async () => {
      task = await modernResult(endpoint, 'tasks/get', { taskId }, options);
      return statuses.includes(task.status);
    },
    `task ${taskId} ${statuses.join(' or ')} (last seen ${String(task?.status)})`,
    timeoutMs,
  );
  return task;
}
