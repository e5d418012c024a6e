/**
 * The least a server can do to answer the bench's requests: parse a JSON-RPC body, answer
 * `tools/call` with a fixed-shape result (`echo` returns its text), and, so that fan-out and
 * memory have a floor too, keep a session map, one SSE stream per session and a URI -> sessions
 * map. No validation, no protocol negotiation, no replay buffer: a floor, not a server.
 *
 * Shared by the bare Nest controller and the bare `node:http` server; each frames HTTP its own
 * way and calls these functions.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { COUNTER_URI, SERVER_INFO } from './fixture-spec.js';

interface FloorSession {
  stream?: ServerResponse;
  uris: Set<string>;
}

export interface FloorAnswer {
  status: number;
  /** undefined: empty body (202). */
  body?: unknown;
  sessionId?: string;
}

const sessions = new Map<string, FloorSession>();
const subscribers = new Map<string, Set<string>>();
let counter = 0;

const result = (id: unknown, value: unknown): FloorAnswer => ({
  status: 200,
  body: { jsonrpc: '2.0', id, result: value },
});
const error = (id: unknown, code: number, message: string, status = 200): FloorAnswer => ({
  status,
  body: { jsonrpc: '2.0', id: id ?? null, error: { code, message } },
});
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

function send(session: FloorSession, message: object): boolean {
  if (!session.stream) return false;
  session.stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  return true;
}

export function notifyUpdated(uri: string): number {
  const ids = subscribers.get(uri);
  if (!ids) return 0;
  const message = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } };
  let reached = 0;
  for (const id of ids) {
    const session = sessions.get(id);
    if (session && send(session, message)) reached++;
  }
  return reached;
}

function broadcastListChanged(): number {
  const message = { jsonrpc: '2.0', method: 'notifications/resources/list_changed' };
  let reached = 0;
  for (const session of sessions.values()) if (send(session, message)) reached++;
  return reached;
}

/** Answers one parsed JSON-RPC message (no batches). */
export function handleRpc(message: any, sessionId: string | undefined): FloorAnswer {
  if (message === null || typeof message !== 'object' || message.jsonrpc !== '2.0') {
    return error(null, -32600, 'Invalid Request', 400);
  }
  const { id, method, params } = message;
  if (id === undefined) return { status: 202 };
  if (method === 'initialize') {
    const newId = randomBytes(24).toString('base64url');
    sessions.set(newId, { uris: new Set() });
    return {
      ...result(id, {
        protocolVersion: params?.protocolVersion ?? '2025-11-25',
        capabilities: { tools: {}, resources: { subscribe: true, listChanged: true } },
        serverInfo: SERVER_INFO,
      }),
      sessionId: newId,
    };
  }
  if (method === 'tools/call') {
    switch (params?.name) {
      case 'echo':
        return result(id, text(String(params.arguments?.text)));
      case 'bump':
        counter++;
        return result(id, text(JSON.stringify({ counter, reached: notifyUpdated(COUNTER_URI) })));
      case 'barrier':
        return result(id, text(JSON.stringify({ reached: broadcastListChanged() })));
      default:
        return error(id, -32602, 'Unknown tool');
    }
  }
  if (method === 'resources/subscribe') {
    const session = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (!session || sessionId === undefined) return error(id, -32000, 'Session required');
    const uri = String(params?.uri);
    session.uris.add(uri);
    const ids = subscribers.get(uri) ?? new Set<string>();
    ids.add(sessionId);
    subscribers.set(uri, ids);
    return result(id, {});
  }
  return error(id, -32601, 'Method not found');
}

/** GET: makes `res` the session's stream. False when the session is unknown (answer 404). */
export function openStream(sessionId: string | undefined, res: ServerResponse): boolean {
  const session = sessionId === undefined ? undefined : sessions.get(sessionId);
  if (!session) return false;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  session.stream?.end();
  session.stream = res;
  res.on('close', () => {
    if (session.stream === res) session.stream = undefined;
  });
  return true;
}

/** DELETE: ends the session, its stream and its subscriptions. */
export function endSession(sessionId: string | undefined): boolean {
  const session = sessionId === undefined ? undefined : sessions.get(sessionId);
  if (!session || sessionId === undefined) return false;
  sessions.delete(sessionId);
  session.stream?.end();
  for (const uri of session.uris) {
    const ids = subscribers.get(uri);
    ids?.delete(sessionId);
    if (ids?.size === 0) subscribers.delete(uri);
  }
  return true;
}

export const floorStats = {
  sessionCount: () => sessions.size,
  streamCount: () => [...sessions.values()].filter((s) => s.stream).length,
};
