/** Raw HTTP helpers for the resource-server tests: bearer headers, challenges, sessions. */
import { rawPost, type RawResponse } from '../raw-http.js';

/** `Authorization: Bearer <token>`. */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** The parameters of a `WWW-Authenticate: Bearer ...` challenge. */
export function challengeOf(header: string | null | undefined): Record<string, string> {
  if (!header) throw new Error('no WWW-Authenticate header');
  if (!header.startsWith('Bearer ')) throw new Error(`not a Bearer challenge: ${header}`);
  const params: Record<string, string> = {};
  for (const [, name, value] of header.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) {
    params[name] = value.replace(/\\(.)/g, '$1');
  }
  return params;
}

export const initializeParams = (capabilities: Record<string, unknown> = {}) => ({
  protocolVersion: '2025-11-25',
  capabilities,
  clientInfo: { name: 'auth-test', version: '1.0.0' },
});

/** Initializes a session with a token; resolves with its id and the headers of later requests. */
export async function authedSession(
  endpoint: string,
  token: string,
  capabilities: Record<string, unknown> = {},
): Promise<{ sessionId: string; headers: Record<string, string> }> {
  const response = await rawPost(
    endpoint,
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams(capabilities) },
    bearer(token),
  );
  const sessionId = response.headers.get('mcp-session-id');
  if (response.status !== 200 || !sessionId) throw new Error(`initialize failed: ${response.status} ${response.text}`);
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  const initialized = await rawPost(
    endpoint,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { ...headers, ...bearer(token) },
  );
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return { sessionId, headers };
}

let nextId = 100;

/** POSTs one request with a token on a session. */
export function call(
  endpoint: string,
  token: string,
  session: { headers: Record<string, string> } | undefined,
  method: string,
  params?: Record<string, unknown>,
): Promise<RawResponse> {
  const id = nextId++;
  const body = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
  return rawPost(endpoint, body, { ...(session?.headers ?? {}), ...bearer(token) });
}
