import { describe, expect, it, jest } from '@jest/globals';
import { InMemoryMcpBackend } from '../backend/in-memory/in-memory.backend.js';
import type { McpConnection } from '../backend/mcp-session.store.js';
import { resolveMcpOptions } from '../mcp-options.resolver.js';
import type { McpListens } from '../protocol/listen/listens.registry.js';
import { sessionRecord } from '../testing/backend-contract.js';
import type { McpServedTransport } from './connection/served-transport.js';
import { McpTransportsLifecycle } from './mcp-transports.lifecycle.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';

const connection = (): McpConnection & { close: jest.Mock<(retryMs?: number) => void> } => ({
  send: () => true,
  close: jest.fn<(retryMs?: number) => void>(),
});

function harness() {
  const options = resolveMcpOptions({ serverInfo: { name: 't', version: '1' } });
  const parts = new InMemoryMcpBackend().connect({ options });
  const steps: string[] = [];
  const listens = { endAll: async () => void steps.push('listens answered') } as unknown as McpListens;
  const transport = (name: string): McpServedTransport & { start: jest.Mock<() => void> } => ({
    kind: name === 'sse' ? 'sse' : 'streamable-http',
    heldStreams: () => 0,
    start: jest.fn<() => void>(),
    drain: async () => void steps.push(`${name} drained`),
    close: () => void steps.push(`${name} closed`),
  });
  const transports = [transport('http'), transport('sse')];
  const lifecycle = new McpTransportsLifecycle(
    transports,
    listens,
    parts.liveStreams,
    parts.postStreams,
    new McpTelemetry(),
  );
  return { parts, steps, transports, lifecycle };
}

describe('McpTransportsLifecycle: one start, one shutdown path', () => {
  it('starts every transport once the application boots', () => {
    const { lifecycle, transports } = harness();
    lifecycle.onApplicationBootstrap();
    for (const transport of transports) expect(transport.start).toHaveBeenCalledTimes(1);
  });

  it('answers the listens, drains the transports, then closes the backend streams with a retry hint, ending no session', async () => {
    const { lifecycle, parts, steps } = harness();
    const sessions = [sessionRecord(), sessionRecord()];
    const held = [];
    for (const session of sessions) {
      await parts.sessions.create(session, 10);
      const stream = connection();
      await parts.liveStreams.attach(session.id, stream);
      held.push(stream);
    }
    for (const stream of held) stream.close.mockImplementation(() => void steps.push('stream closed'));

    await lifecycle.beforeApplicationShutdown();

    expect(steps).toEqual(['listens answered', 'http drained', 'sse drained', 'stream closed', 'stream closed']);
    for (const stream of held) expect(stream.close).toHaveBeenCalledWith(1_000);
    // A deploy must not delete sessions: their clients resume (elsewhere) with Last-Event-ID.
    for (const session of sessions) {
      expect(parts.liveStreams.holds(session.id)).toBe(false);
      expect(await parts.sessions.count()).toBe(2);
    }
  });

  it('drains once, however many shutdown hooks run, and closes the transports last', async () => {
    const { lifecycle, steps } = harness();
    await Promise.all([lifecycle.beforeApplicationShutdown(), lifecycle.beforeApplicationShutdown()]);
    await lifecycle.onApplicationShutdown();
    expect(steps).toEqual(['listens answered', 'http drained', 'sse drained', 'http closed', 'sse closed']);
  });
});
