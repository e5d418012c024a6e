/**
 * Every inbound path passes the same checks: one table, each check on each path (a Streamable
 * HTTP request, a batch element, a WebSocket frame, a stdio line, a legacy `POST /messages`).
 * A cell says what the path answers; where a check cannot apply to a path by protocol, the cell
 * is the reason, and that path's test is reported as skipped under it (never a silent pass).
 * Resource-server mode (authorization) and a modern-only endpoint need apps of their own: they
 * are the last two tables.
 *
 * Each check's message calls a tool that counts its runs under a marker of the test's own, so
 * "refused" also proves "never ran".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import { McpArgs, McpCtx, McpTool, RequireScopes, type McpRequestContext } from '@app/mcp';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { NOTES_SCOPES, startAuthApp, type AuthApp } from '../support/oauth/auth-app.js';
import { bearer } from '../support/oauth/auth-http.js';
import { refusedUpgrade } from '../support/oauth/refused-upgrade.js';
import { freePort } from '../support/free-port.js';
import { rawPost } from '../support/raw-http.js';
import { stdioPipes, type StdioPipes } from '../support/stdio-pipes.js';
import { openWs, wsUrl } from '../support/ws-client.js';
import {
  INBOUND_PATHS,
  openInboundPath,
  type InboundOutcome,
  type InboundPath,
  type InboundPathKind,
  type InboundRequest,
  type InboundTarget,
} from '../support/inbound-paths.js';

/** The bound of one message on every path (`maxBodyBytes`; WebSocket and stdio follow it). */
const MAX_MESSAGE_BYTES = 16 * 1024;
const MODERN = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** Runs of `inbound.record`, by marker. */
const runs = new Map<string, number>();

@Injectable()
class InboundTools {
  @McpTool({
    name: 'inbound.record',
    description: 'Counts its runs under a marker; answers the era it ran in',
    input: { type: 'object', properties: { marker: { type: 'string' }, pad: { type: 'string' } } },
  })
  record(@McpArgs('marker') marker: string, @McpCtx() ctx: McpRequestContext) {
    runs.set(marker, (runs.get(marker) ?? 0) + 1);
    return { era: ctx.era };
  }

  @RequireScopes('notes:write')
  @McpTool({
    name: 'inbound.write',
    description: 'Needs notes:write',
    input: { type: 'object', properties: { marker: { type: 'string' } } },
  })
  write(@McpArgs('marker') marker: string) {
    runs.set(marker, (runs.get(marker) ?? 0) + 1);
    return { written: true };
  }
}

let nextId = 1;
let nextMarker = 1;

/** A `tools/call` of `tool` with a fresh id and marker, and `params` merged in. */
function call(tool: string, extra: Record<string, unknown> = {}, args: Record<string, unknown> = {}) {
  const marker = `m${nextMarker++}`;
  const message: InboundRequest = {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: { name: tool, arguments: { marker, ...args }, ...extra },
  };
  return { marker, message };
}

/** The headers a modern client sends with a `tools/call` of `tool`. */
const modernHeaders = (tool: string) => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': tool,
});
const modernMeta = { [META_VERSION]: MODERN, [META_CAPABILITIES]: {} };

/** What a cell expects. */
type Cell =
  /** Refused with this JSON-RPC code (and this HTTP status, where one carries it); never run. */
  | { refused: number; status?: number }
  /** Served in this era; ran once. */
  | { served: 'legacy' | 'modern' }
  /** The server closed the socket with this code instead; never run. */
  | { closed: number; status?: undefined };

/** A row of the table: per path, what it answers, or why the check cannot apply to it (by protocol). */
type Cells<T = Cell> = Readonly<Record<InboundPathKind, T | string>>;

interface Check {
  /** Builds the message (and the HTTP headers that carry it, on HTTP paths). */
  message(): { marker: string; message: InboundRequest; headers?: Record<string, string> };
  readonly cells: Cells;
}

const NO_HTTP_HEADERS =
  'a WebSocket frame and a stdio line carry no HTTP headers: the 2026-07-28 request headers are a Streamable HTTP feature, so there is nothing to check against the body';

/**
 * A malformed message: -32600 Invalid Request on every path, as a 400 on HTTP, inside a 200
 * batch answer, and as an accepted (202) POST whose refusal travels on the legacy SSE stream.
 */
const INVALID_REQUEST_EVERYWHERE: Cells = {
  http: { refused: -32600, status: 400 },
  batch: { refused: -32600, status: 200 },
  websocket: { refused: -32600 },
  stdio: { refused: -32600 },
  'legacy-sse': { refused: -32600, status: 202 },
};

/** The checks every path passes (resource-server mode aside: see below). */
const CHECKS: Readonly<Record<string, Check>> = {
  'framing: not JSON-RPC 2.0': {
    message: () => {
      const built = call('inbound.record');
      return { ...built, message: { ...built.message, jsonrpc: '1.0' } };
    },
    cells: INVALID_REQUEST_EVERYWHERE,
  },
  'era: a 2026-07-28 request sent where the path serves a legacy session': {
    message: () => call('inbound.record', { _meta: modernMeta }),
    cells: {
      // Served as modern only with its headers checked: without them, -32020.
      http: { refused: -32020, status: 400 },
      // A batch is legacy by definition: its modern element is refused.
      batch: { refused: -32600, status: 200 },
      // Classified per message: a modern message stands alone, statelessly.
      websocket: { served: 'modern' },
      stdio: { served: 'modern' },
      // HTTP+SSE is the transport of the legacy era only.
      'legacy-sse': { refused: -32000, status: 202 },
    },
  },
  'headers: a 2026-07-28 request whose Mcp-Name disagrees with its body': {
    message: () => ({ ...call('inbound.record', { _meta: modernMeta }), headers: modernHeaders('other.tool') }),
    cells: {
      http: { refused: -32020, status: 400 },
      // MCP-Protocol-Version names a version no legacy session speaks: the whole batch is
      // refused, as any legacy request with that header (the era row sends the element bare).
      batch: { refused: -32000, status: 400 },
      websocket: NO_HTTP_HEADERS,
      stdio: NO_HTTP_HEADERS,
      // The legacy transport looks at no modern header: the era check refuses the request.
      'legacy-sse': { refused: -32000, status: 202 },
    },
  },
  'envelope: a 2026-07-28 request without its required _meta fields': {
    // The envelope is checked before the headers, so none are sent.
    message: () => call('inbound.record', { _meta: { [META_VERSION]: MODERN } }),
    cells: {
      http: { refused: -32602, status: 400 },
      batch: { refused: -32600, status: 200 },
      websocket: { refused: -32602 },
      stdio: { refused: -32602 },
      'legacy-sse': { refused: -32000, status: 202 },
    },
  },
  'framing: a method name longer than any MCP method (257 characters)': {
    message: () => {
      const built = call('inbound.record');
      return { ...built, message: { ...built.message, method: `tools/call${'x'.repeat(247)}` } };
    },
    cells: INVALID_REQUEST_EVERYWHERE,
  },
  [`size: a message over maxBodyBytes (${MAX_MESSAGE_BYTES} bytes)`]: {
    message: () => call('inbound.record', {}, { pad: 'x'.repeat(MAX_MESSAGE_BYTES) }),
    cells: {
      http: { refused: -32600, status: 413 },
      // The batch is one message: its bound is the same.
      batch: { refused: -32600, status: 413 },
      // RFC 6455 1009: message too big.
      websocket: { closed: 1009 },
      stdio: { refused: -32600 },
      'legacy-sse': { refused: -32600, status: 413 },
    },
  },
};

/** Asserts what a path answered against its cell. */
function expectCell(cell: Cell, outcome: InboundOutcome, marker: string): void {
  if ('served' in cell) {
    expect(outcome.answer?.error).toBeUndefined();
    expect(outcome.answer?.result?.structuredContent ?? JSON.parse(outcome.answer?.result?.content?.[0]?.text)).toEqual(
      { era: cell.served },
    );
    expect(runs.get(marker)).toBe(1);
    return;
  }
  if ('closed' in cell) {
    expect(outcome.closed).toBe(cell.closed);
  } else {
    expect(outcome.answer?.error?.code).toBe(cell.refused);
    if (cell.status !== undefined) expect(outcome.status).toBe(cell.status);
  }
  expect(runs.get(marker)).toBeUndefined();
}

/**
 * One test per path: `run` with what the path is given, or, where the check cannot apply to the
 * path, a skipped test whose name says why (shown as such in every report, never a silent pass).
 */
function perPath<T>(
  cells: Cells<T>,
  title: (kind: InboundPathKind, given: T) => string,
  run: (kind: InboundPathKind, given: T) => Promise<void>,
): void {
  for (const kind of INBOUND_PATHS) {
    const given = cells[kind];
    if (typeof given === 'string') it.skip(`over ${kind}: not applicable, ${given}`, () => undefined);
    else it(title(kind, given), () => run(kind, given));
  }
}

describe('every inbound path passes the same checks', () => {
  let fixture: FixtureApp;
  let pipes: StdioPipes;
  let target: InboundTarget;
  const open: InboundPath[] = [];

  beforeAll(async () => {
    pipes = stdioPipes();
    fixture = await startFixtureApp({
      providers: [InboundTools],
      // No per-transport limits: the WebSocket frame and the stdio line follow maxBodyBytes.
      mcp: { ws: {}, sse: {}, stdio: true, limits: { maxBodyBytes: MAX_MESSAGE_BYTES } },
      overrides: [pipes.override],
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
    await pipes.initialize();
    target = { origin: fixture.origin, endpoint: fixture.endpoint, pipes };
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((path) => path.close()));
  });

  afterAll(async () => {
    pipes?.end();
    await fixture?.close();
  });

  describe.each(Object.entries(CHECKS))('%s', (_name, check) => {
    perPath(
      check.cells,
      (kind, cell) => `over ${kind}: ${JSON.stringify(cell)}`,
      async (kind, cell) => {
        const path = await openInboundPath(kind, target);
        open.push(path);
        const { marker, message, headers } = check.message();

        const outcome = await path.send(message, headers);

        expectCell(cell, outcome, marker);
      },
    );
  });
});

describe("a JSON-RPC batch on a modern-only endpoint (protocol: 'modern'), which has no batches", () => {
  let fixture: FixtureApp;
  let pipes: StdioPipes;

  beforeAll(async () => {
    pipes = stdioPipes();
    fixture = await startFixtureApp({
      providers: [InboundTools],
      mcp: { protocol: 'modern', ws: {}, stdio: true },
      overrides: [pipes.override],
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
  });

  afterAll(async () => {
    pipes?.end();
    await fixture?.close();
  });

  /** Sends `batch` as the path carries one message and resolves with the refusal (id null). */
  const CARRIERS: Cells<(batch: object[]) => Promise<InboundOutcome>> = {
    http: async (batch) => {
      const response = await rawPost(fixture.endpoint, batch, modernHeaders('inbound.record'));
      return { status: response.status, answer: response.json };
    },
    batch: 'the batch is what the other paths carry here',
    websocket: async (batch) => {
      const ws = await openWs(wsUrl(fixture.origin));
      try {
        await ws.send(batch);
        return { answer: await ws.waitFor((m) => m?.id === null) };
      } finally {
        await ws.close();
      }
    },
    stdio: async (batch) => {
      const from = pipes.messages.length;
      pipes.send(batch);
      return { answer: await pipes.waitFor((m) => m?.id === null, 5_000, from) };
    },
    'legacy-sse': 'HTTP+SSE serves the legacy era only, whatever the endpoint serves',
  };

  perPath(
    CARRIERS,
    (kind) => `over ${kind}: refused whole with -32600, nothing run`,
    async (kind, carry) => {
      const { marker, message } = call('inbound.record', { _meta: modernMeta });

      const outcome = await carry([message]);

      expect(outcome.answer?.error?.code).toBe(-32600);
      if (kind === 'http') expect(outcome.status).toBe(400);
      expect(runs.get(marker)).toBeUndefined();
    },
  );
});

describe('every inbound path passes the same authorization checks (resource-server mode)', () => {
  const ALL_SCOPES = NOTES_SCOPES.join(' ');
  const OTHER = { clientId: 'other-client', clientSecret: 'other-secret' };
  let provider: OidcHarness;
  let app: AuthApp;
  const open: InboundPath[] = [];

  beforeAll(async () => {
    const port = await freePort();
    provider = await OidcHarness.start({
      resources: { [`http://127.0.0.1:${port}/mcp`]: { scope: ALL_SCOPES } },
      clients: [
        { clientId: 'mcp-client', clientSecret: 'mcp-secret', scope: ALL_SCOPES },
        { ...OTHER, scope: ALL_SCOPES },
      ],
    });
    app = await startAuthApp({ provider, providers: [InboundTools], mcp: { ws: {}, sse: {} } }, port);
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((path) => path.close()));
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  const token = (scope: string, client = {}) => provider.token({ resource: app.endpoint, scope, ...client });
  const STDIO =
    'stdio has no HTTP request to carry a token: MCP authorization is for HTTP transports, and a stdio server takes its credentials from its environment';

  /** A path whose every HTTP request (and upgrade) carries a token with `scope`. */
  const openWith = async (kind: InboundPathKind, scope: string) => {
    const path = await openInboundPath(kind, {
      origin: app.origin,
      endpoint: app.endpoint,
      headers: bearer(await token(scope)),
    });
    open.push(path);
    return path;
  };

  const SCOPE_CELLS: Cells = {
    http: { refused: -32003, status: 403 },
    // One element's refusal rides in the batch's answer (200), next to the served ones.
    batch: { refused: -32003, status: 200 },
    websocket: { refused: -32003 },
    stdio: STDIO,
    'legacy-sse': { refused: -32003, status: 202 },
  };

  describe('a token without the scope a tool needs', () => {
    perPath(
      SCOPE_CELLS,
      (kind, cell) => `over ${kind}: ${JSON.stringify(cell)}`,
      async (kind, cell) => {
        const path = await openWith(kind, 'notes:read');
        const { marker, message } = call('inbound.write');

        expectCell(cell, await path.send(message), marker);
      },
    );
  });

  /** How each path carries a message without a token: the request that carries it has none. */
  const WITHOUT_TOKEN: Cells<() => Promise<InboundOutcome>> = {
    http: async () => {
      const { message } = call('inbound.record');
      const response = await rawPost(app.endpoint, message);
      return { status: response.status, answer: response.json };
    },
    batch: async () => {
      const { message } = call('inbound.record');
      const response = await rawPost(app.endpoint, [message, { jsonrpc: '2.0', id: 'b', method: 'ping' }]);
      return { status: response.status, answer: response.json };
    },
    // The socket's messages carry the upgrade's token: it is the upgrade that has none.
    websocket: async () => {
      const refusal = await refusedUpgrade(wsUrl(app.origin), {});
      return { status: refusal.status, answer: JSON.parse(refusal.body) };
    },
    stdio: STDIO,
    // The stream was opened with a token; this POST to it has none.
    'legacy-sse': async () => {
      const path = await openWith('legacy-sse', ALL_SCOPES);
      const { message } = call('inbound.record');
      return path.send(message, { authorization: '' });
    },
  };

  const SOCKET_TOKEN =
    "a WebSocket frame carries no token of its own: the socket's messages are the upgrade's principal's";
  /** Another principal's token on a session (or stream) opened by the first: as if it did not exist. */
  const FOREIGN_CELLS: Cells = {
    http: { refused: -32001, status: 404 },
    batch: { refused: -32001, status: 404 },
    websocket: SOCKET_TOKEN,
    stdio: STDIO,
    'legacy-sse': { refused: -32001, status: 404 },
  };

  describe("another principal's token on the path's session", () => {
    perPath(
      FOREIGN_CELLS,
      (kind, cell) => `over ${kind}: ${JSON.stringify(cell)}`,
      async (kind, cell) => {
        const path = await openWith(kind, ALL_SCOPES);
        const { marker, message } = call('inbound.record');

        expectCell(cell, await path.send(message, bearer(await token(ALL_SCOPES, OTHER))), marker);
      },
    );
  });

  describe('a message without a token', () => {
    perPath(
      WITHOUT_TOKEN,
      (kind) => `over ${kind}: 401 -32005, never run`,
      async (_kind, send) => {
        const before = new Map(runs);

        const outcome = await send();

        expect(outcome.status).toBe(401);
        expect(outcome.answer?.error?.code).toBe(-32005);
        expect(runs).toEqual(before);
      },
    );
  });
});
