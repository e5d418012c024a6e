/**
 * The official TypeScript SDK v2 client (`@modelcontextprotocol/client` 2.x) against the
 * reference gateway, over Streamable HTTP (an in-process gateway) or stdio (the built gateway
 * with `--stdio`, spawned by the SDK's own `StdioClientTransport`), in any of its three version
 * negotiation modes. Notifications are recorded in order and can be awaited; nothing sleeps.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientOptions,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { GATEWAY_ENTRY, PROJECT_ROOT } from './stdio-client.js';

export const MODERN_VERSION = '2026-07-28';

/** `versionNegotiation.mode` of the SDK v2 client. */
export type NegotiationMode = 'legacy' | 'auto' | { pin: string };
export type SdkTransportKind = 'http' | 'stdio';

export const PINNED: NegotiationMode = { pin: MODERN_VERSION };
export const modeName = (mode: NegotiationMode): string => (typeof mode === 'string' ? mode : `pin ${mode.pin}`);

export interface ReceivedNotification {
  method: string;
  params: Record<string, any>;
}

export interface SdkV2Connection {
  client: Client;
  /** The HTTP transport (its `sessionId`), undefined on stdio. */
  http?: StreamableHTTPClientTransport;
  /** Every `notifications/resources/updated` received, in order. */
  readonly updates: ReceivedNotification[];
  /** Resolves with the first update at index >= `from` matching `predicate` (bounded). */
  nextUpdate(
    predicate: (notification: ReceivedNotification) => boolean,
    from?: number,
    timeoutMs?: number,
  ): Promise<ReceivedNotification>;
  /** What the elicitation handler answers next (and the requests it saw). */
  elicitAnswer: ElicitResult | ((request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>);
  readonly elicitations: ElicitRequest['params'][];
  /** Errors the client reported through `onerror`. */
  readonly errors: Error[];
  /** Everything the stdio child wrote to stderr. */
  readonly stderr: () => string;
  close(): Promise<void>;
}

export interface ConnectOptions {
  mode: NegotiationMode;
  /** The Streamable HTTP endpoint (required for `http`). */
  endpoint?: string;
  /** Declare the elicitation capability and answer with `elicitAnswer` (default true). */
  elicitation?: boolean;
  /** Extra environment for the stdio child. */
  env?: Record<string, string>;
  name?: string;
  /** More client options (`listChanged`, `inputRequired`, ...). */
  clientOptions?: Partial<ClientOptions>;
}

/** Connects an SDK v2 client over `kind` in `mode`, recording resource updates. */
export async function connectSdkV2(kind: SdkTransportKind, options: ConnectOptions): Promise<SdkV2Connection> {
  const elicitation = options.elicitation ?? true;
  const clientOptions: ClientOptions = {
    capabilities: elicitation ? { elicitation: { form: {} } } : {},
    versionNegotiation: { mode: options.mode },
    ...options.clientOptions,
  };
  const client = new Client({ name: options.name ?? 'sdk-v2-e2e', version: '2.0.0' }, clientOptions);
  const updates: ReceivedNotification[] = [];
  const waiters = new Set<() => void>();
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push({ method: notification.method, params: notification.params as Record<string, any> });
    for (const wake of [...waiters]) wake();
  });
  const connection: SdkV2Connection = {
    client,
    updates,
    elicitAnswer: { action: 'accept', content: { confirm: true } },
    elicitations: [],
    errors,
    stderr: () => stderr,
    nextUpdate: (predicate, from = 0, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = updates.slice(from).find(predicate);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(found);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no matching resources/updated within ${timeoutMs} ms; got ${JSON.stringify(updates)}`));
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      }),
    close: async () => {
      await client.close().catch(() => undefined);
    },
  };
  if (elicitation) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      connection.elicitations.push(request.params);
      const answer = connection.elicitAnswer;
      return typeof answer === 'function' ? answer(request, ctx.mcpReq.signal) : answer;
    });
  }

  let stderr = '';
  if (kind === 'http') {
    if (!options.endpoint) throw new Error('connectSdkV2(http) needs an endpoint');
    const transport = new StreamableHTTPClientTransport(new URL(options.endpoint));
    connection.http = transport;
    await client.connect(transport);
  } else {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [GATEWAY_ENTRY, '--stdio'],
      cwd: PROJECT_ROOT,
      env: { ...(process.env as Record<string, string>), ...options.env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await client.connect(transport, { timeout: 30_000 });
  }
  return connection;
}

/** The JSON a gateway tool answered (its `structuredContent`, else its first text content). */
export function toolJson(value: unknown): any {
  const result = value as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  if (result.isError) throw new Error(`expected a successful tool result, got ${JSON.stringify(result)}`);
  if (result.structuredContent !== undefined) return result.structuredContent;
  const [first] = result.content as { type: string; text?: string }[];
  return JSON.parse(first.text ?? 'null');
}

/** The text of a tool result's first content block. */
export const toolText = (result: { content?: unknown }): string =>
  (result.content as { text?: string }[])[0]?.text ?? '';

/** The rejection of `promise` (fails when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
}
