/**
 * The reference gateway's telemetry (docs/telemetry.md), on the BUILT gateway in child
 * processes: OTLP export configured by nothing but `OTEL_*` variables (to a receiver in this test,
 * in both encodings), the Prometheus scrape at /metrics (on the gateway's listener, behind its
 * Host/Origin checks, or on a port of its own), the flush when the process stops, stdout kept for
 * JSON-RPC in stdio mode, and no SDK module loaded at all when no variable asks for telemetry.
 *
 * Every wait is on output, on the receiver's requests or on the process; the timeouts only bound
 * them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startOtlpReceiver, SPAN_KIND_SERVER, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { parseScrape } from '../support/prometheus-scrape.js';
import {
  buildGatewayIfNeeded,
  GATEWAY_ENTRY,
  PROJECT_ROOT,
  spawnStdioGateway,
  type StdioGateway,
} from '../support/stdio-client.js';
import { watchProcess, type WatchedProcess } from '../support/watched-process.js';
import { openWs, wsUrl } from '../support/ws-client.js';

const LOADED_MODULES = pathToFileURL(join(PROJECT_ROOT, 'test', 'support', 'loaded-modules.mjs')).href;
/** Boot, a call, an export: generous bounds for a loaded two-core machine. */
const TEST_TIMEOUT_MS = 60_000;
const TOOL = 'notes.create';
const DEFAULT_SERVICE_NAME = 'mcp-resource-gateway';

/** The test runner's environment without anything that would turn telemetry or colours on or off. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(OTEL_|MCP_PROMETHEUS)/.test(name) || ['NO_COLOR', 'FORCE_COLOR', 'NEST_LOG_LEVEL'].includes(name)) continue;
    env[name] = value;
  }
  return { ...env, URLS: 'http://127.0.0.1:0', ...extra };
}

interface Gateway {
  process: WatchedProcess;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The file the module probe writes (see loaded-modules.mjs). */
  modulesFile: string;
  /** Every ES module the gateway resolved so far. */
  loadedModules(): string[];
  stop(): Promise<void>;
}

const scratch = mkdtempSync(join(tmpdir(), 'telemetry-gateway-'));
let gatewayCount = 0;

async function startGateway(env: Record<string, string>): Promise<Gateway> {
  const modulesFile = join(scratch, `modules-${++gatewayCount}.txt`);
  const child = watchProcess(process.execPath, ['--import', LOADED_MODULES, GATEWAY_ENTRY], {
    cwd: PROJECT_ROOT,
    env: cleanEnv({ ...env, LOADED_MODULES_FILE: modulesFile }),
  });
  const { match } = await child.waitForLine(/MCP endpoints: http:\/\/(127\.0\.0\.1:\d+)\/mcp /, 30_000);
  return {
    process: child,
    origin: `http://${match[1]}`,
    modulesFile,
    loadedModules: () => readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean),
    stop: async () => {
      await child.stop();
    },
  };
}

/** The SDK client over Streamable HTTP: connects, calls the notes tool once, and stays open. */
async function connectAndCall(origin: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'telemetry-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', origin));
  await client.connect(transport);
  const result = await client.callTool({ name: TOOL, arguments: { title: 'traced', body: 'a note with a trace' } });
  expect(result.isError).toBeFalsy();
  return { client, transport };
}

/** A GET with chosen headers (fetch will not send another Host). */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** An OTLP receiver, the gateway exporting to it, and an SDK client that called the notes tool once. */
interface ExportingGateway {
  receiver: OtlpReceiver;
  gateway: Gateway;
  transport: StreamableHTTPClientTransport;
  client: Client;
}

/**
 * For a describe block: a receiver, the gateway started with `env` and the receiver's endpoint
 * in `OTEL_EXPORTER_OTLP_ENDPOINT`, and a client that made one tool call; all closed after it.
 */
function exportingGateway(env: Record<string, string>): ExportingGateway {
  const setup = {} as ExportingGateway;
  beforeAll(async () => {
    setup.receiver = await startOtlpReceiver();
    setup.gateway = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: setup.receiver.endpoint, ...env });
    Object.assign(setup, await connectAndCall(setup.gateway.origin));
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await setup.client?.close().catch(() => undefined);
    await setup.gateway?.stop();
    await setup.receiver?.close();
  });
  return setup;
}

const isToolSpan = (span: ReceivedSpan) => span.name === `tools/call ${TOOL}`;
const SDK_MODULE = /\/node_modules\/@opentelemetry\/sdk-node\//;
/** The SDK proper: what the library's only dependency, `@opentelemetry/api`, is not. */
const ANY_SDK_MODULE = /\/node_modules\/@opentelemetry\/(sdk-|exporter-|otlp-|resources\/|core\/)/;

/** The span attributes the library sets on a tools/call over Streamable HTTP (docs/telemetry.md). */
function expectToolCallSpan(span: ReceivedSpan, transport: StreamableHTTPClientTransport): void {
  expect(span.kind).toBe(SPAN_KIND_SERVER);
  expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
  expect(span.attributes).toMatchObject({
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': TOOL,
    'gen_ai.operation.name': 'execute_tool',
    'mcp.protocol.version': transport.protocolVersion,
    // The session id's SHA-256 digest, never the id: it is the session's credential.
    'mcp.session.id': createHash('sha256').update(transport.sessionId!).digest('hex').slice(0, 32),
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'client.address': '127.0.0.1',
  });
  expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
  // A successful call: no error attributes.
  expect(span.attributes['error.type']).toBeUndefined();
  expect(span.attributes['rpc.response.status_code']).toBeUndefined();
}

beforeAll(async () => {
  await buildGatewayIfNeeded();
}, 240_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('OTLP over http/json, from OTEL_* variables alone', () => {
  const otlp = exportingGateway({
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'notes-gateway-json',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=e2e',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRIC_EXPORT_INTERVAL: '200',
  });

  it('says at startup what it exports, and loads the SDK', () => {
    expect(
      otlp.gateway.process.lines.some((line) => line.includes('OpenTelemetry: traces over OTLP, metrics over OTLP')),
    ).toBe(true);
    expect(otlp.gateway.loadedModules().some((url) => SDK_MODULE.test(url))).toBe(true);
  });

  it(
    'exports a SERVER span `tools/call <tool>` with the MCP attributes, in JSON, under OTEL_SERVICE_NAME',
    async () => {
      const span = await otlp.receiver.waitForSpan(isToolSpan, `a span named 'tools/call ${TOOL}'`);
      expectToolCallSpan(span, otlp.transport);
      expect(span.resource['service.name']).toBe('notes-gateway-json');
      expect(span.resource['deployment.environment.name']).toBe('e2e');
      expect(otlp.receiver.requests.filter((r) => r.path === '/v1/traces').map((r) => r.contentType)).toContain(
        'application/json',
      );
      expect(otlp.receiver.errors).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'exports the mcp.server.operation.duration histogram (seconds) for tools/call',
    async () => {
      const metric = await otlp.receiver.waitForMetric(
        (m) =>
          m.name === 'mcp.server.operation.duration' &&
          m.dataPoints.some((point) => point.attributes['mcp.method.name'] === 'tools/call'),
        'mcp.server.operation.duration with a tools/call data point',
      );
      expect(metric.type).toBe('histogram');
      expect(metric.unit).toBe('s');
      const point = metric.dataPoints.find((p) => p.attributes['mcp.method.name'] === 'tools/call')!;
      expect(point.count).toBeGreaterThanOrEqual(1);
      expect(metric.resource['service.name']).toBe('notes-gateway-json');
      expect(otlp.receiver.requests.filter((r) => r.path === '/v1/metrics').map((r) => r.contentType)).toContain(
        'application/json',
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "writes the tool call's log line with the trace id of its span",
    async () => {
      const span = await otlp.receiver.waitForSpan(isToolSpan, `a span named 'tools/call ${TOOL}'`);
      const { match } = await otlp.gateway.process.waitForLine(
        new RegExp(
          `\\[McpTools\\] ${TOOL.replace('.', '\\.')} completed .* trace_id=([0-9a-f]{32}) span_id=[0-9a-f]{16}$`,
        ),
        10_000,
      );
      expect(match[1]).toBe(span.traceId);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'marks a failed call: error.type and rpc.response.status_code are the JSON-RPC error code',
    async () => {
      await expect(otlp.client.callTool({ name: 'no.such.tool', arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
      const span = await otlp.receiver.waitForSpan(
        (s) => s.attributes['mcp.method.name'] === 'tools/call' && s.attributes['error.type'] !== undefined,
        'a tools/call span with error.type',
      );
      expect(span.attributes['error.type']).toBe('-32602');
      expect(span.attributes['rpc.response.status_code']).toBe('-32602');
      expect(span.statusCode).toBe(2);
    },
    TEST_TIMEOUT_MS,
  );
  // Last in this block: its refused span would answer the waits above for an error span.
  it.each([
    ['an unsupported version (-32022)', '2099-01-01', -32022],
    ['the version it serves', '2026-07-28', undefined],
  ])(
    'exports the SERVER span of a 2026-07-28 tools/call over WebSocket with %s',
    async (_what, version, code) => {
      const ws = await openWs(wsUrl(otlp.gateway.origin));
      try {
        const answer = await ws.request('tools/call', {
          name: 'echo',
          arguments: { text: 'over a socket' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': version,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        });
        expect(answer.error?.code).toBe(code);
        const span = await otlp.receiver.waitForSpan(
          (received) =>
            received.attributes['mcp.method.name'] === 'tools/call' &&
            received.attributes['network.protocol.name'] === 'websocket' &&
            received.attributes['jsonrpc.request.id'] === String(answer.id),
          `the SERVER span of WebSocket request ${String(answer.id)}`,
        );
        expect(span.kind).toBe(SPAN_KIND_SERVER);
        expect(span.attributes['network.protocol.name']).toBe('websocket');
        expect(span.attributes['error.type']).toBe(code === undefined ? undefined : String(code));
      } finally {
        await ws.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('OTLP over http/protobuf beside Prometheus at /metrics, flushed at SIGTERM', () => {
  const otlp = exportingGateway({
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    // Nothing is exported on a schedule before the end of the test: what arrives is the flush.
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    OTEL_METRIC_EXPORT_INTERVAL: '600000',
    MCP_PROMETHEUS: '1',
  });

  it('serves /metrics on its own listener in the Prometheus text format, under the default service name', async () => {
    const { status, body } = await get(`${otlp.gateway.origin}/metrics`);
    expect(status).toBe(200);
    const scrape = parseScrape(body);
    expect(scrape.family('target_info')?.type).toBe('GAUGE');
    expect(scrape.family('target_info')?.metrics[0].labels?.service_name).toBe(DEFAULT_SERVICE_NAME);
  });

  it('has the tools/call histogram in the scrape', async () => {
    const { body } = await get(`${otlp.gateway.origin}/metrics`);
    const scrape = parseScrape(body);
    // @opentelemetry/exporter-prometheus 0.301 keeps the unit in a `# UNIT` line, not in the name.
    expect(scrape.family('mcp_server_operation_duration')?.type).toBe('HISTOGRAM');
    expect(body).toContain('# UNIT mcp_server_operation_duration s');
    const counts = scrape.series('mcp_server_operation_duration_count');
    const toolCalls = counts.find((sample) => sample.labels.mcp_method_name === 'tools/call');
    expect(toolCalls?.value).toBeGreaterThanOrEqual(1);
    expect(toolCalls?.labels.gen_ai_tool_name).toBe(TOOL);
  });

  it('refuses a foreign Origin or Host at /metrics with the 403 /mcp gives', async () => {
    const foreignOrigin = { Origin: 'https://evil.example' };
    const badHost = { Host: 'evil.example' };
    for (const headers of [foreignOrigin, badHost]) {
      const metrics = await get(`${otlp.gateway.origin}/metrics`, headers);
      const mcp = await get(`${otlp.gateway.origin}/mcp`, headers);
      expect(metrics.status).toBe(403);
      expect(mcp.status).toBe(403);
      expect(JSON.parse(metrics.body)).toEqual(JSON.parse(mcp.body));
    }
    const local = await get(`${otlp.gateway.origin}/metrics`, { Origin: 'http://localhost:3000' });
    expect(local.status).toBe(200);
  });

  it(
    'flushes the span and the metrics over OTLP (protobuf) when it gets SIGTERM, and exits',
    async () => {
      expect(otlp.receiver.spans.filter(isToolSpan)).toEqual([]);
      await otlp.client.close();
      const exit = await otlp.gateway.process.stop(15_000);
      expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
      const span = otlp.receiver.spans.find(isToolSpan);
      expect(span).toBeDefined();
      expectToolCallSpan(span!, otlp.transport);
      expect(span!.resource['service.name']).toBe(DEFAULT_SERVICE_NAME);
      expect(otlp.receiver.requests.map((r) => r.contentType)).toEqual(
        expect.arrayContaining(['application/x-protobuf']),
      );
      expect(otlp.receiver.requests.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
      const metric = otlp.receiver.metrics.find((m) => m.name === 'mcp.server.operation.duration');
      expect(metric?.dataPoints.some((point) => point.attributes['mcp.method.name'] === 'tools/call')).toBe(true);
      expect(otlp.receiver.errors).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('Prometheus on a port of its own (MCP_PROMETHEUS_PORT), without OTLP', () => {
  let gateway: Gateway;
  let metricsUrl: string;
  let client: Client;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_PROMETHEUS_PORT: '0' });
    const { match } = await gateway.process.waitForLine(/Prometheus metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/);
    metricsUrl = match[1];
    ({ client } = await connectAndCall(gateway.origin));
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
  });

  it('serves the scrape there and not on the MCP listener', async () => {
    expect(new URL(metricsUrl).port).not.toBe(new URL(gateway.origin).port);
    const scrape = await get(metricsUrl);
    expect(scrape.status).toBe(200);
    expect(parseScrape(scrape.body).family('target_info')).toBeDefined();
    expect((await get(`${gateway.origin}/metrics`)).status).toBe(404);
    expect((await get(new URL('/other', metricsUrl).href)).status).toBe(404);
  });

  it('has the tools/call histogram there', async () => {
    const scrape = parseScrape((await get(metricsUrl)).body);
    const toolCalls = scrape
      .series('mcp_server_operation_duration_count')
      .find((sample) => sample.labels.mcp_method_name === 'tools/call');
    expect(toolCalls?.value).toBeGreaterThanOrEqual(1);
  });

  it('applies the Host/Origin checks of /mcp there too', async () => {
    expect((await get(metricsUrl, { Origin: 'https://evil.example' })).status).toBe(403);
    expect((await get(metricsUrl, { Host: 'evil.example' })).status).toBe(403);
  });

  it('loads the SDK with its Prometheus exporter, and says so at startup', () => {
    const modules = gateway.loadedModules();
    expect(modules.some((url) => url.includes('/@opentelemetry/exporter-prometheus/'))).toBe(true);
    expect(gateway.process.lines.some((line) => line.includes('OpenTelemetry: Prometheus metrics'))).toBe(true);
  });
});

/** A POST of `body` to `url` without a session (and without any credential). */
function post(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('Prometheus against hostile method names', () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_PROMETHEUS: '1' });
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await gateway?.stop();
  });

  it(
    'ten unauthenticated POSTs with 3.9 MB method names are refused, recorded as nothing, and the scrape still answers with the process alive',
    async () => {
      for (let i = 0; i < 10; i++) {
        const method = `${i}${'m'.repeat(3_900_000)}`;
        const answer = await post(`${gateway.origin}/mcp`, JSON.stringify({ jsonrpc: '2.0', id: i, method }));
        // Refused before anything is recorded: without a session (-32000), or for the method (-32600).
        expect(answer.status).toBe(400);
        expect(JSON.parse(answer.body).error.code).toBeLessThan(0);
      }
      // A thousand short invented methods are one series, not a thousand.
      for (let i = 0; i < 200; i++) {
        await post(`${gateway.origin}/mcp`, JSON.stringify({ jsonrpc: '2.0', id: i, method: `invented/${i}` }));
      }

      const scrape = await get(`${gateway.origin}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.body.length).toBeLessThan(1_000_000);
      const methods = new Set(
        parseScrape(scrape.body)
          .series('mcp_server_operation_duration_count')
          .map((sample) => sample.labels.mcp_method_name),
      );
      expect([...methods].some((method) => method?.startsWith('invented/'))).toBe(false);
      expect(methods.has('_OTHER')).toBe(true);
      expect(gateway.process.child.exitCode).toBeNull();
    },
    TEST_TIMEOUT_MS,
  );
});

describe('Prometheus behind its scrape token (MCP_PROMETHEUS_TOKEN)', () => {
  const TOKEN = 'scrape-secret-0123456789abcdef';
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_PROMETHEUS: '1', MCP_PROMETHEUS_TOKEN: TOKEN });
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await gateway?.stop();
  });

  it('answers 401 with a Bearer challenge without the token or with another, 200 with it', async () => {
    const url = `${gateway.origin}/metrics`;
    expect((await get(url)).status).toBe(401);
    expect((await get(url, { Authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await get(url, { Authorization: `Basic ${TOKEN}` })).status).toBe(401);
    const scrape = await get(url, { Authorization: `Bearer ${TOKEN}` });
    expect(scrape.status).toBe(200);
    expect(parseScrape(scrape.body).family('target_info')).toBeDefined();
  });

  it('refuses to start beside authorization without a token', async () => {
    const child = watchProcess(process.execPath, [GATEWAY_ENTRY], {
      cwd: PROJECT_ROOT,
      env: cleanEnv({ MCP_PROMETHEUS: '1', MCP_AUTH_ISSUER: 'https://auth.example.com' }),
    });
    await child.waitForLine(/MCP_PROMETHEUS_TOKEN/, 30_000);
    expect((await child.exited).code).toBe(1);
  });
});

describe('OTLP to a collector that is not there', () => {
  let gateway: Gateway;

  beforeAll(async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = await startOtlpReceiver();
    const endpoint = closed.endpoint;
    await closed.close();
    gateway = await startGateway({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '100',
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    });
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await gateway?.stop();
  });

  it(
    'says once that exports fail, and stops without waiting out the flush',
    async () => {
      const { client } = await connectAndCall(gateway.origin);
      await client.close();
      const { index } = await gateway.process.waitForLine(
        /OpenTelemetry exports to http:\/\/127\.0\.0\.1:\d+ fail/,
        30_000,
      );
      // Several more exports fail meanwhile (a metric export every 100 ms): still one line. The
      // line the process writes when it stops is the mark that everything before it was read.
      const stopping = Date.now();
      const exit = await gateway.process.stop();
      const stopMs = Date.now() - stopping;
      expect(exit.code === 0 || exit.signal === 'SIGTERM' || exit.code === null).toBe(true);
      expect(gateway.process.lines.filter((line) => /OpenTelemetry exports .* fail/.test(line))).toHaveLength(1);
      expect(gateway.process.lines.slice(index).filter((line) => /OpenTelemetry exports/.test(line))).toEqual([
        gateway.process.lines[index],
      ]);
      // The flush of a collector known gone is bounded at 500 ms: the whole stop takes less than
      // the 5 s the flush alone waited before.
      expect(stopMs).toBeLessThan(5_000);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stops without waiting out the flush when the first export is the one at shutdown',
    async () => {
      const closed = await startOtlpReceiver();
      const endpoint = closed.endpoint;
      await closed.close();
      // The SDK's own delays and timeouts: nothing is exported before the stop.
      const fresh = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      try {
        // One initialize over a plain POST: a span to flush, and no stream left for the stop to drain.
        const initialize = {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stop-test', version: '1' } },
        };
        expect((await post(`${fresh.origin}/mcp`, JSON.stringify(initialize))).status).toBe(200);
        const stopping = Date.now();
        await fresh.process.stop();
        // The flush's export goes unanswered (retried against a closed port): after 1 s the
        // shutdown stops waiting, where it waited its full 5 s before.
        expect(Date.now() - stopping).toBeLessThan(5_000);
      } finally {
        await fresh.stop();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('stdio mode with OTLP', () => {
  let receiver: OtlpReceiver;
  let stdio: StdioGateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });

  afterAll(async () => {
    await stdio?.stop();
    await receiver?.close();
  });

  it(
    'keeps stdout for JSON-RPC (the SDK diagnostics go to stderr) and exits 0 at EOF',
    async () => {
      stdio = spawnStdioGateway(
        cleanEnv({
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_BSP_SCHEDULE_DELAY: '600000',
          OTEL_METRIC_EXPORT_INTERVAL: '600000',
          // The most the SDK can say about itself: none of it may reach stdout.
          OTEL_LOG_LEVEL: 'debug',
        }) as Record<string, string>,
        { command: process.execPath, args: [GATEWAY_ENTRY, '--stdio'] },
      );
      await stdio.initialize();
      const call = await stdio.request('tools/call', { name: TOOL, arguments: { title: 'piped', body: 'over stdio' } });
      expect(call.result?.isError).toBeFalsy();
      const exit = await stdio.stop(15_000);
      expect(exit.code).toBe(0);
      const notJson = stdio.lines.filter((line) => {
        try {
          return (JSON.parse(line) as { jsonrpc?: string }).jsonrpc !== '2.0';
        } catch {
          return true;
        }
      });
      expect(notJson).toEqual([]);
      expect(stdio.stderr).toContain('[otel] debug');
      expect(receiver.errors).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it('has flushed the tools/call span, on a pipe, before exiting', () => {
    expect(stdio?.hasExited).toBe(true);
    const span = receiver.spans.find(isToolSpan);
    expect(span?.kind).toBe(SPAN_KIND_SERVER);
    expect(span?.attributes['network.transport']).toBe('pipe');
  });
});

describe('without OTEL_* variables', () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({});
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await gateway?.stop();
  });

  it('loads no OpenTelemetry SDK module, serves as before, and logs without trace ids', async () => {
    const { client } = await connectAndCall(gateway.origin);
    await client.close();
    const { match } = await gateway.process.waitForLine(/\[McpTools\] notes\.create completed .*$/);
    expect(match[0]).not.toContain('trace_id=');
    expect(match[0]).toMatch(/\(request \d+, streamable-http\)$/);
    const modules = gateway.loadedModules();
    // The probe works: it saw the gateway's own modules.
    expect(modules.some((url) => url.endsWith('/dist/src/main.js'))).toBe(true);
    expect(modules.filter((url) => ANY_SDK_MODULE.test(url))).toEqual([]);
    expect(gateway.process.lines.some((line) => line.includes('OpenTelemetry:'))).toBe(false);
    expect((await get(`${gateway.origin}/metrics`)).status).toBe(404);
  });
});
