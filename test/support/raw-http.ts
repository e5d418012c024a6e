/** Raw HTTP helpers for exact wire checks against the MCP endpoint. */

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: any;
}

export async function rawPost(
  endpoint: string,
  body: string | object,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return toRaw(response);
}

export async function rawRequest(
  endpoint: string,
  method: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return toRaw(await fetch(endpoint, { method, headers }));
}

async function toRaw(response: Response): Promise<RawResponse> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const initializeRequest = (id: number | string = 1, protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
});

/** Initializes a session over raw HTTP and returns its id and negotiated version. */
export async function openSession(
  endpoint: string,
  protocolVersion = '2025-11-25',
): Promise<{ sessionId: string; headers: Record<string, string> }> {
  const response = await rawPost(endpoint, initializeRequest(1, protocolVersion));
  if (response.status !== 200) throw new Error(`initialize failed: ${response.status} ${response.text}`);
  const sessionId = response.headers.get('mcp-session-id');
  if (!sessionId) throw new Error('initialize returned no MCP-Session-Id');
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': response.json.result.protocolVersion };
  const initialized = await rawPost(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return { sessionId, headers };
}

/** Parses an SSE body into its events. */
export function parseSse(text: string): { id?: string; event?: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const event: { id?: string; event?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) event.data += line.slice(6);
      }
      return event;
    });
}
