/**
 * The library's gauges read at collection, each after the state change it reports (the
 * transports' gauges and the refusal counter run over real transports in
 * test/e2e/telemetry-library-metrics.e2e-spec.ts).
 */
import 'reflect-metadata';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { MCP_BACKEND_PARTS, MCP_FANOUT } from '../backend/mcp-backend.tokens.js';
import type { McpFanout } from '../backend/mcp-fanout.js';
import type { McpBackendParts } from '../backend/mcp-backend.interface.js';
import { McpClientRequests } from '../client-requests/mcp-client-requests.js';
import { McpListens } from '../protocol/listen/listens.registry.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { McpTestClient } from '../testing/mcp-testing-module.js';
import { memoryTelemetry, type MemoryTelemetry } from '../../../../test/support/otel-memory.js';

const URI = 'memo://one';

describe('the library gauges', () => {
  let memory: MemoryTelemetry;
  let client: McpTestClient;

  const value = async (name: string): Promise<number | undefined> => (await memory.valuePoints(name))[0]?.value;

  beforeEach(async () => {
    memory = memoryTelemetry();
    client = await McpTestClient.create({
      options: { telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider } },
    });
  });

  afterEach(async () => {
    await client.close();
    await memory.shutdown();
  });

  it('nest_mcp.sessions.open: the backend count, after a session opens and after it ends', async () => {
    expect(await value('nest_mcp.sessions.open')).toBe(0);

    const ctx = await client.initialize();
    expect(await value('nest_mcp.sessions.open')).toBe(1);
    const metric = (await memory.metrics()).get('nest_mcp.sessions.open')!;
    expect(metric.descriptor.unit).toBe('{session}');

    await client.module.get(McpSessionManager).end(ctx.session!.id, 'deleted');
    expect(await value('nest_mcp.sessions.open')).toBe(0);
  });

  it('nest_mcp.listens.open: a listen while it is open', async () => {
    const listens = client.module.get(McpListens);
    const stop = new AbortController();
    const listener = { resources: new Set([URI]), lists: new Set<never>(), notify: () => undefined };

    const open = listens.start(listener, stop.signal);
    expect(await value('nest_mcp.listens.open')).toBe(1);

    stop.abort();
    await open.ended.catch(() => undefined);
    expect(await value('nest_mcp.listens.open')).toBe(0);
  });

  it('nest_mcp.client_requests.pending: an elicitation while its answer is awaited', async () => {
    const requests = client.module.get(McpClientRequests);
    const sent: string[] = [];
    const asking = requests.request('session-1', 'elicitation/create', {}, { send: (json) => sent.push(json) > 0 });

    expect(await value('nest_mcp.client_requests.pending')).toBe(1);

    const { id } = JSON.parse(sent[0]) as { id: string };
    expect(requests.receive('session-1', { jsonrpc: '2.0', id, result: { action: 'accept' } }, undefined)).toBe(true);
    await asking;
    expect(await value('nest_mcp.client_requests.pending')).toBe(0);
  });

  it('nest_mcp.delivery.queue.size: a notification accepted and not written yet, none once delivered', async () => {
    const fanout = client.module.get<McpFanout>(MCP_FANOUT);
    const stop = new AbortController();
    const notified: string[] = [];
    const open = client.module
      .get(McpListens)
      .start(
        { resources: new Set([URI]), lists: new Set<never>(), notify: (method: string) => void notified.push(method) },
        stop.signal,
      );
    const ended = open.ended.catch(() => undefined);

    // Queued behind this turn: the collection below runs on promises only, before the queue's
    // next turn writes it.
    await fanout.resourceUpdated(URI);
    expect(await value('nest_mcp.delivery.queue.size')).toBe(1);

    // The backend's own fan-out (MCP_FANOUT is it wrapped in the fan-out span) knows when it is done.
    const backend = client.module.get<McpBackendParts>(MCP_BACKEND_PARTS).fanout;
    await (backend as McpFanout & { delivered(): Promise<void> }).delivered();
    expect(notified).toHaveLength(1);
    expect(await value('nest_mcp.delivery.queue.size')).toBe(0);
    stop.abort();
    await ended;
  });
});
