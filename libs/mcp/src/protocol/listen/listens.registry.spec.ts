import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { InMemoryMcpBackend } from '../../backend/in-memory/in-memory.backend.js';
import type { McpListener } from '../../backend/mcp-fanout.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import { McpListenQuotaExceededException, McpTooManyListensException } from '../../errors/mcp-modern.exceptions.js';
import { resolveMcpOptions } from '../../mcp-options.resolver.js';
import { McpListens } from './listens.registry.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';

const NOW = 1_700_000_000_000;

function listensWith(options: { maxListens?: number; maxListensPerCaller?: number } = {}) {
  const resolved = resolveMcpOptions({ serverInfo: { name: 't', version: '1' }, ...options });
  const fanout = new InMemoryMcpBackend().connect({ options: resolved }).fanout;
  return { listens: new McpListens(resolved, fanout, new McpTelemetry()), fanout };
}

const listener = (): McpListener & { notify: jest.Mock } => ({
  resources: new Set(['a://1']),
  lists: new Set(),
  notify: jest.fn(),
});

const principal = (expiresInMs: number): McpPrincipal => ({
  issuer: 'https://issuer.example',
  subject: 'alice',
  scopes: [],
  audience: [],
  expiresAt: (NOW + expiresInMs) / 1000,
  claims: {},
});

describe('McpListens', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('ends a listen, with its completion, when the token of its principal expires, and lets it go', async () => {
    const { listens, fanout } = listensWith();
    const open = listens.start(listener(), new AbortController().signal, {
      caller: 'p:alice',
      principal: principal(60_000),
    });
    let ended = false;
    void open.ended.then(() => (ended = true));

    await jest.advanceTimersByTimeAsync(59_999);
    expect(ended).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(ended).toBe(true);
    expect(listens.size).toBe(0);
    expect(listens.heldBy('p:alice')).toBe(0);
    expect((await fanout.resourceUpdated('a://1')).listeners).toBe(0);
  });

  it('stops the expiry timer of a listen the client drops', async () => {
    const { listens } = listensWith();
    const controller = new AbortController();
    const open = listens.start(listener(), controller.signal, { principal: principal(60_000) });
    expect(jest.getTimerCount()).toBe(1);

    controller.abort(new Error('gone'));
    await expect(open.ended).rejects.toThrow('gone');
    expect(jest.getTimerCount()).toBe(0);
    expect(listens.size).toBe(0);
  });

  it('holds each caller to maxListensPerCaller, under the instance-wide maxListens', async () => {
    const { listens } = listensWith({ maxListens: 3, maxListensPerCaller: 2 });
    const controller = new AbortController();
    const first = listens.start(listener(), controller.signal, { caller: 'a:127.0.0.2' });
    listens.start(listener(), new AbortController().signal, { caller: 'a:127.0.0.2' });
    expect(() => listens.assertRoom('a:127.0.0.2')).toThrow(McpListenQuotaExceededException);
    expect(() => listens.start(listener(), new AbortController().signal, { caller: 'a:127.0.0.2' })).toThrow(
      McpListenQuotaExceededException,
    );
    listens.start(listener(), new AbortController().signal, { caller: 'a:127.0.0.3' });
    expect(() => listens.assertRoom('a:127.0.0.4')).toThrow(McpTooManyListensException);

    controller.abort();
    await expect(first.ended).rejects.toThrow();
    expect(listens.heldBy('a:127.0.0.2')).toBe(1);
    expect(() => listens.assertRoom('a:127.0.0.2')).not.toThrow();
  });

  it('does not count a caller it cannot name (stdio), and ends every listen at shutdown', async () => {
    const { listens } = listensWith({ maxListensPerCaller: 1 });
    const opened = [1, 2, 3].map(() => listens.start(listener(), new AbortController().signal, {}));
    expect(listens.size).toBe(3);
    await listens.endAll();
    await Promise.all(opened.map((open) => open.ended));
    expect(listens.size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('defaults the per-caller cap to a tenth of the instance cap', () => {
    const resolve = (options: object) => resolveMcpOptions({ serverInfo: { name: 't', version: '1' }, ...options });
    expect(resolve({}).maxListensPerCaller).toBe(1_000);
    expect(resolve({ maxListens: 25 }).maxListensPerCaller).toBe(2);
    expect(resolve({ maxListens: 5 }).maxListensPerCaller).toBe(1);
    expect(resolve({}).maxStreamsPerCaller).toBe(1_000);
    expect(resolve({ maxSessions: 50, maxStreamsPerCaller: 7 }).maxStreamsPerCaller).toBe(7);
  });
});
