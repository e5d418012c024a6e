import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOWED_METHODS = 'GET, POST, DELETE';
const ALLOWED_HEADERS = 'Content-Type, Accept, Authorization, MCP-Session-Id, MCP-Protocol-Version, Last-Event-ID';
const EXPOSED_HEADERS = 'MCP-Session-Id, MCP-Protocol-Version, WWW-Authenticate';

/**
 * CORS for browser clients whose Origin passed the allowlist: the origin is echoed (never `*`)
 * and the MCP headers are exposed. Requests without an Origin get nothing.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  res.setHeader('Vary', 'Origin');
}

/** Answers a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`). */
export function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  applyCors(req, res);
  res.writeHead(204, {
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': '600',
  });
  res.end();
}
