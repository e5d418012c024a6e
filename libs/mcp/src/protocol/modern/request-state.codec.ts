import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { McpInvalidRequestStateException } from '../../errors/mcp-modern.exceptions.js';

/** What a `requestState` carries from one round of a multi round-trip request to the next. */
export interface RequestStatePayload {
  /** The method the state was made for. */
  readonly method: string;
  /** A digest of the request's salient params (everything but `_meta`, `inputResponses`, `requestState`). */
  readonly digest: string;
  /** The principal it belongs to (an opaque key), when the request had one. */
  readonly principal?: string;
  /** Expiry, epoch ms. */
  readonly expiresAt: number;
  /** The client's answers of the earlier rounds, by input key. */
  readonly answers: Record<string, unknown>;
  /** What the handler kept with `ctx.roundState`. */
  readonly state: Record<string, unknown>;
}

/** What a presented state must match. */
export interface RequestStateExpectation {
  readonly method: string;
  readonly digest: string;
  readonly principal?: string;
  readonly now: number;
}

/** A `requestState` larger than this is refused unread. */
export const MAX_REQUEST_STATE_CHARS = 256 * 1024;

const VERSION = 'v1';

/**
 * Seals and opens MRTR `requestState` tokens: `v1.<base64url JSON>.<base64url HMAC-SHA256>`.
 * The state is attacker-controlled input, so it is integrity-protected (never encrypted: it
 * holds nothing the client did not send) and bound to the method, a digest of the params, an
 * expiry and the principal. Keys rotate: the first signs, every one verifies.
 */
export class RequestStateCodec {
  private readonly keys: Buffer[];

  constructor(keys: readonly (string | Buffer)[]) {
    if (keys.length === 0) throw new Error('RequestStateCodec needs at least one key');
    this.keys = keys.map((key) => (Buffer.isBuffer(key) ? key : Buffer.from(key, 'utf8')));
  }

  seal(payload: RequestStatePayload): string {
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${VERSION}.${body}.${this.mac(this.keys[0], body)}`;
  }

  /** The payload of a state that verifies and matches; throws `-32602` otherwise. */
  open(token: unknown, expected: RequestStateExpectation): RequestStatePayload {
    if (typeof token !== 'string' || token.length > MAX_REQUEST_STATE_CHARS) {
      throw new McpInvalidRequestStateException('it is not a state this server issued');
    }
    const [version, body, signature, extra] = token.split('.');
    if (version !== VERSION || !body || !signature || extra !== undefined || !this.verifies(body, signature)) {
      throw new McpInvalidRequestStateException('its signature does not verify');
    }
    let payload: RequestStatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as RequestStatePayload;
    } catch {
      throw new McpInvalidRequestStateException('it is not a state this server issued');
    }
    if (payload.expiresAt < expected.now)
      throw new McpInvalidRequestStateException('it has expired; start the request again');
    if (payload.method !== expected.method || payload.digest !== expected.digest) {
      throw new McpInvalidRequestStateException('it was issued for another request');
    }
    if (payload.principal !== expected.principal)
      throw new McpInvalidRequestStateException('it was issued to another caller');
    return payload;
  }

  private verifies(body: string, signature: string): boolean {
    const presented = Buffer.from(signature, 'base64url');
    return this.keys.some((key) => {
      const expected = Buffer.from(this.mac(key, body), 'base64url');
      return expected.length === presented.length && timingSafeEqual(expected, presented);
    });
  }

  private mac(key: Buffer, body: string): string {
    return createHmac('sha256', key).update(VERSION).update('.').update(body).digest('base64url');
  }
}

/** Params that are not part of what a request asks: they change from round to round. */
const ROUND_PARAMS = new Set(['_meta', 'inputResponses', 'requestState']);

/** A digest of the params that identify a request across its rounds (canonical JSON, SHA-256). */
export function digestParams(params: Record<string, unknown>): string {
  const salient: Record<string, unknown> = {};
  for (const key of Object.keys(params).sort()) if (!ROUND_PARAMS.has(key)) salient[key] = params[key];
  return createHash('sha256').update(canonicalJson(salient)).digest('base64url');
}

/** JSON with object keys sorted, so equal values always give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
