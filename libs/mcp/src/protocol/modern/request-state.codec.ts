import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { McpInvalidRequestStateException } from '../../errors/mcp-modern.exceptions.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { DEFAULT_MAX_ARGUMENT_DEPTH } from '../../mcp.constants.js';
import { isObject } from '../../model/is-object.js';

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
  /** The input keys this round asked the client for: the only `inputResponses` the retry may bring. */
  readonly asked: readonly string[];
  /** Random, for the replay guard: the retry that presents the state consumes it. */
  readonly nonce: string;
  /** The client's answers of the earlier rounds, by input key. */
  readonly answers: Record<string, unknown>;
  /** What the handler kept with `ctx.roundState`. */
  readonly state: Record<string, unknown>;
}

/** What a presented state must match. */
export interface RequestStateExpectation {
  readonly method: string;
  /** The retry's params, digested only once the state verified. */
  readonly params: Record<string, unknown>;
  readonly principal?: string;
  readonly now: number;
}

/** A `requestState` larger than this is refused unread, and never sealed. */
export const MAX_REQUEST_STATE_CHARS = 256 * 1024;

/** Thrown by `seal` when the state would be larger than a client may send back. */
export class RequestStateTooLargeError extends Error {
  constructor(readonly chars: number) {
    super(`the state would be ${chars} characters, over the limit of ${MAX_REQUEST_STATE_CHARS}`);
    this.name = 'RequestStateTooLargeError';
  }
}

const VERSION = 'v1';

/** Refused before the signature is checked: anything else would be work done for a forger. */
const NOT_ISSUED = 'it is not a state this server issued';

/**
 * Seals and opens MRTR `requestState` tokens: `v1.<base64url JSON>.<base64url HMAC-SHA256>`.
 * The state is attacker-controlled input, so it is integrity-protected (never encrypted: it
 * holds nothing the client did not send) and bound to the method, a digest of the params, an
 * expiry and the principal. Keys rotate: the first signs, every one verifies.
 *
 * Opening checks the signature before anything reads the state or walks the request: a forged
 * state costs one HMAC of at most `MAX_REQUEST_STATE_CHARS`, and the digest of the params (a
 * walk of client input, bounded by `maxParamsDepth`) runs only for a state this server sealed.
 */
export class RequestStateCodec {
  private readonly keys: Buffer[];

  /**
   * @param keys signing keys, the first one signing.
   * @param maxParamsDepth deepest nesting of the params the digest walks (the params object is
   *   level 1); deeper params are refused with `-32602`.
   */
  constructor(
    keys: readonly (string | Buffer)[],
    private readonly maxParamsDepth = DEFAULT_MAX_ARGUMENT_DEPTH + 1,
  ) {
    if (keys.length === 0) throw new Error('RequestStateCodec needs at least one key');
    this.keys = keys.map((key) => (Buffer.isBuffer(key) ? key : Buffer.from(key, 'utf8')));
  }

  /** The digest of a request's params, as `seal` expects it. */
  digest(params: Record<string, unknown>): string {
    return digestParams(params, this.maxParamsDepth);
  }

  /** The token of `payload`; throws `RequestStateTooLargeError` when `open` would refuse it for its size. */
  seal(payload: RequestStatePayload): string {
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    const token = `${VERSION}.${body}.${this.mac(this.keys[0], body)}`;
    if (token.length > MAX_REQUEST_STATE_CHARS) throw new RequestStateTooLargeError(token.length);
    return token;
  }

  /**
   * The payload of a state that verifies and matches; throws `McpInvalidRequestStateException`
   * (`-32602`) otherwise, or `McpInvalidParamsException` (`-32602`) when a genuine state meets
   * params too deep to digest. Never anything else, whatever `token` is.
   */
  open(token: unknown, expected: RequestStateExpectation): RequestStatePayload {
    if (typeof token !== 'string' || token.length > MAX_REQUEST_STATE_CHARS) {
      throw new McpInvalidRequestStateException(NOT_ISSUED);
    }
    const [version, body, signature, extra] = token.split('.', 4);
    if (version !== VERSION || !body || !signature || extra !== undefined || !this.verifies(body, signature)) {
      throw new McpInvalidRequestStateException('its signature does not verify');
    }
    const payload = parsePayload(body);
    if (!payload) throw new McpInvalidRequestStateException(NOT_ISSUED);
    if (payload.expiresAt < expected.now)
      throw new McpInvalidRequestStateException('it has expired; start the request again');
    if (payload.method !== expected.method)
      throw new McpInvalidRequestStateException('it was issued for another request');
    if (payload.principal !== expected.principal)
      throw new McpInvalidRequestStateException('it was issued to another caller');
    if (payload.digest !== this.digest(expected.params)) {
      throw new McpInvalidRequestStateException('it was issued for another request');
    }
    return payload;
  }

  /**
   * Compares the signature's text, not its decoded bytes: a base64url decoder skips characters
   * outside the alphabet and ignores the last character's spare bits, and a state must have one
   * spelling only.
   */
  private verifies(body: string, signature: string): boolean {
    const presented = Buffer.from(signature, 'utf8');
    return this.keys.some((key) => {
      const expected = Buffer.from(this.mac(key, body), 'utf8');
      return expected.length === presented.length && timingSafeEqual(expected, presented);
    });
  }

  private mac(key: Buffer, body: string): string {
    return createHmac('sha256', key).update(VERSION).update('.').update(body).digest('base64url');
  }
}

/**
 * The payload of a signed body, or undefined when it does not have the current shape (a state
 * sealed by an older version under the same key, which is refused like any other).
 */
function parsePayload(body: string): RequestStatePayload | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (
    !isObject(payload) ||
    typeof payload.method !== 'string' ||
    typeof payload.digest !== 'string' ||
    (payload.principal !== undefined && typeof payload.principal !== 'string') ||
    typeof payload.expiresAt !== 'number' ||
    !Array.isArray(payload.asked) ||
    !payload.asked.every((key) => typeof key === 'string') ||
    typeof payload.nonce !== 'string' ||
    payload.nonce.length === 0 ||
    !isObject(payload.answers) ||
    !isObject(payload.state)
  ) {
    return undefined;
  }
  return payload as unknown as RequestStatePayload;
}

/** Params that are not part of what a request asks: they change from round to round. */
const ROUND_PARAMS = new Set(['_meta', 'inputResponses', 'requestState']);

/**
 * A digest of the params that identify a request across its rounds (canonical JSON, SHA-256).
 * Params nested deeper than `maxDepth` levels (the params object is level 1) are refused with
 * `-32602`.
 */
export function digestParams(params: Record<string, unknown>, maxDepth = DEFAULT_MAX_ARGUMENT_DEPTH + 1): string {
  const salient: Record<string, unknown> = {};
  for (const key of Object.keys(params)) if (!ROUND_PARAMS.has(key)) salient[key] = params[key];
  return createHash('sha256').update(canonicalJson(salient, maxDepth)).digest('base64url');
}

/** A piece of the output still to write: literal text, or a value at its depth. */
type Pending = string | readonly [value: unknown, depth: number];

/**
 * JSON with object keys sorted, so equal values always give equal text. Iterative (a stack of
 * what is left to write, in reverse), so no nesting can overflow the call stack; and bounded: a
 * value nested deeper than `maxDepth` is refused before anything below it is read.
 */
function canonicalJson(root: unknown, maxDepth: number): string {
  const out: string[] = [];
  const pending: Pending[] = [[root, 1]];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next === 'string') {
      out.push(next);
      continue;
    }
    const [value, depth] = next;
    if (typeof value !== 'object' || value === null) {
      out.push(JSON.stringify(value) ?? 'null');
      continue;
    }
    if (depth > maxDepth) {
      throw new McpInvalidParamsException(`The request's params are nested deeper than ${maxDepth} levels`);
    }
    if (Array.isArray(value)) {
      pending.push(']');
      for (let i = value.length - 1; i >= 0; i--) {
        pending.push([value[i], depth + 1]);
        if (i > 0) pending.push(',');
      }
      pending.push('[');
    } else {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      pending.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        pending.push([record[keys[i]], depth + 1], `${JSON.stringify(keys[i])}:`);
        if (i > 0) pending.push(',');
      }
      pending.push('{');
    }
  }
  return out.join('');
}
