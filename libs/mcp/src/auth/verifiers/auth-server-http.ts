import { McpAuthServerUnavailableError } from './verifier.errors.js';

/** Largest document accepted from an authorization server (metadata, JWKS, introspection). */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** How the verifiers talk to an authorization server. */
export interface AuthServerHttpOptions {
  /** @default 5_000 */
  readonly timeoutMs?: number;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** An answer of the authorization server: its status and, when it sent some, its JSON object. */
export interface AuthServerAnswer {
  readonly status: number;
  readonly json?: Record<string, unknown>;
}

/**
 * One request to an authorization server, bounded in time and size. A network failure, a timeout
 * or an unreadable body throw `McpAuthServerUnavailableError`; any HTTP status is returned for
 * the caller to judge (a 404 of a discovery URL just means "try the next one").
 */
export async function requestAuthServer(
  url: string,
  init: RequestInit,
  options: AuthServerHttpOptions = {},
): Promise<AuthServerAnswer> {
  const fetcher = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await fetcher(url, {
      ...init,
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
      headers: { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) },
    });
  } catch (error) {
    throw new McpAuthServerUnavailableError(`${new URL(url).origin} cannot be reached: ${describe(error)}`, {
      cause: error,
    });
  }
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel();
    throw new McpAuthServerUnavailableError(`${url} answered a document larger than ${MAX_DOCUMENT_BYTES} bytes`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new McpAuthServerUnavailableError(`${url} broke off its answer: ${describe(error)}`, { cause: error });
  }
  if (text.length > MAX_DOCUMENT_BYTES) {
    throw new McpAuthServerUnavailableError(`${url} answered a document larger than ${MAX_DOCUMENT_BYTES} bytes`);
  }
  return { status: response.status, json: parseObject(text) };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
};
