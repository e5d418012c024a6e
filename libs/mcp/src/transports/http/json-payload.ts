import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpParseErrorException } from '../../errors/mcp-protocol.exceptions.js';
import {
  McpPayloadTooLargeException,
  McpUnsupportedMediaTypeException,
} from '../../errors/mcp-transport.exceptions.js';
import { BodyTooLargeError, decodeJsonBody, readRequestBody } from './body-reader.js';
import { rejectHttp } from './http-rejection.js';
import { endAfterBody, LINGER_MS } from './lingering-close.js';
import { isJsonContentType } from './media-type.js';

/** Where the body reader leaves the raw bytes of an MCP POST. */
export const MCP_RAW_BODY = Symbol('mcp:raw-body');

export type McpHttpRequest = IncomingMessage & { [MCP_RAW_BODY]?: Buffer };

/** A parsed POST body; `undefined` when the request was already answered with an error. */
export type JsonPayload = { value: unknown } | undefined;

/**
 * Reads the JSON-RPC payload of a POST: 415 for a non-JSON content type, 413 past the limit,
 * 400 `-32700` for bytes that are not UTF-8 JSON. Uses the bytes the early body reader kept
 * when it ran.
 */
export async function readJsonPayload(
  req: McpHttpRequest,
  res: ServerResponse,
  maxBytes: number,
): Promise<JsonPayload> {
  if (!isJsonContentType(req.headers['content-type'])) {
    rejectHttp(res, new McpUnsupportedMediaTypeException());
    return undefined;
  }
  const body = req[MCP_RAW_BODY] ?? (await readLate(req, res, maxBytes));
  if (!body) return undefined;
  const decoded = decodeJsonBody(body);
  if (!decoded.ok) {
    rejectHttp(res, new McpParseErrorException(decoded.detail));
    return undefined;
  }
  return { value: decoded.value };
}

/** Reads the body now: a body already parsed by a framework parser is taken as it is. */
async function readLate(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<Buffer | undefined> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (req.readableEnded && parsed !== undefined) return Buffer.from(JSON.stringify(parsed));
  try {
    return await readRequestBody(req, maxBytes);
  } catch (error) {
    rejectBody(res, error, maxBytes);
    return undefined;
  }
}

/**
 * 413 with a JSON-RPC body; the connection closes once the client has finished sending (or at
 * the linger deadline), so that clients still uploading read the answer. An aborted body just
 * drops the socket.
 */
export function rejectBody(res: ServerResponse, error: unknown, maxBytes: number, lingerMs = LINGER_MS): void {
  if (!(error instanceof BodyTooLargeError) || res.headersSent) {
    res.destroy();
    return;
  }
  rejectHttp(res, new McpPayloadTooLargeException(maxBytes), null, { end: false });
  endAfterBody(res.req, res, lingerMs);
}
