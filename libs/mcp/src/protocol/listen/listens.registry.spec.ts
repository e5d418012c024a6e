import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { InMemoryMcpBackend } from '../../backend/in-memory/in-memory.backend.js';
import type { McpListener } from '../../backend/mcp-fanout.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import { resolveMcpOptions } from '../../mcp-options.resolver.js';
import { CANCEL_PROOF_MS, McpListens } from './listens.registry.js';
import { thrownBy } from '../../testing/thrown.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';

const NOW = 1_700_000_000_000;

function listensWith(options: { maxListens?: number; maxListensPerCaller?: number } = {}) {
  const resolved = resolveMcpOptions({ serverInfo: { name: 't', version: '1' }, modern: options });
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
    expect(thrownBy(() => listens.assertRoom('a:127.0.0.2'))).toMatchObject({ capacity: 'listensPerCaller', limit: 2 });
    expect(
      thrownBy(() => listens.start(listener(), new AbortController().signal, { caller: 'a:127.0.0.2' })),
    ).toMatchObject({ capacity: 'listensPerCaller', limit: 2 });
    listens.start(listener(), new AbortController().signal, { caller: 'a:127.0.0.3' });
    expect(thrownBy(() => listens.assertRoom('a:127.0.0.4'))).toMatchObject({ capacity: 'listens', limit: 3 });

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

  describe('cancel by caller and request id', () => {
    const owner = { caller: 'a:127.0.0.1', requestId: 'listen:0' };
    const settled = (ended: Promise<void>) => {
      const state = { done: false };
      ended.then(
        () => (state.done = true),
        () => (state.done = true),
      );
      return state;
    };

    it("ends the one listen the caller holds under that id, and no other caller's", async () => {
      const { listens } = listensWith();
      const other = listens.start(listener(), new AbortController().signal, { ...owner, caller: 'a:127.0.0.9' });
      const mine = listens.start(listener(), new AbortController().signal, owner);
      expect(listens.cancel(owner.caller, 'listen:0', 'done')).toBe(1);
      await expect(mine.ended).rejects.toThrow('done');
      expect(settled(other.ended).done).toBe(false);
      expect(listens.size).toBe(1);
    });

    it('ends none when the caller holds two listens of that id', async () => {
      const { listens } = listensWith();
      const first = settled(listens.start(listener(), new AbortController().signal, owner).ended);
      const second = settled(listens.start(listener(), new AbortController().signal, owner).ended);
      expect(listens.cancel(owner.caller, 'listen:0')).toBe(0);
      await jest.advanceTimersByTimeAsync(0);
      expect([first.done, second.done]).toEqual([false, false]);
      expect(listens.size).toBe(2);
    });

    it('ends none while a listen of that id ended lately, then the one left once that is past', async () => {
      const { listens } = listensWith();
      const closed = new AbortController();
      const first = listens.start(listener(), closed.signal, owner);
      const second = listens.start(listener(), new AbortController().signal, owner);
      closed.abort(new Error('stream closed'));
      await expect(first.ended).rejects.toThrow('stream closed');

      // The cancel may be the closed client's own: the other client's listen stays.
      expect(listens.cancel(owner.caller, 'listen:0')).toBe(0);
      await jest.advanceTimersByTimeAsync(CANCEL_PROOF_MS - 1);
      expect(listens.cancel(owner.caller, 'listen:0')).toBe(0);
      await jest.advanceTimersByTimeAsync(1);
      expect(listens.cancel(owner.caller, 'listen:0')).toBe(1);
      await expect(second.ended).rejects.toThrow();
      expect(listens.size).toBe(0);
    });

    it('remembers at most maxListens recent ends', async () => {
      const { listens } = listensWith({ maxListens: 2 });
      for (const id of ['a', 'b', 'c']) {
        const controller = new AbortController();
        const open = listens.start(listener(), controller.signal, { ...owner, requestId: id });
        controller.abort();
        await expect(open.ended).rejects.toThrow();
      }
      // 'a' was forgotten to keep the record at two: a new listen of it can be cancelled at once.
      const again = listens.start(listener(), new AbortController().signal, { ...owner, requestId: 'a' });
      expect(listens.cancel(owner.caller, 'a')).toBe(1);
      await expect(again.ended).rejects.toThrow();
      const recent = listens.start(listener(), new AbortController().signal, { ...owner, requestId: 'c' });
      expect(listens.cancel(owner.caller, 'c')).toBe(0);
      await listens.endAll();
      await recent.ended;
    });
  });

  it('defaults the per-caller cap to a tenth of the instance cap', () => {
    const resolve = (options: object) => resolveMcpOptions({ serverInfo: { name: 't', version: '1' }, ...options });
    expect(resolve({}).maxListensPerCaller).toBe(1_000);
    expect(resolve({ modern: { maxListens: 25 } }).maxListensPerCaller).toBe(2);
    expect(resolve({ modern: { maxListens: 5 } }).maxListensPerCaller).toBe(1);
    expect(resolve({}).maxStreamsPerCaller).toBe(1_000);
    expect(resolve({ sessions: { max: 50 }, limits: { maxStreamsPerCaller: 7 } }).maxStreamsPerCaller).toBe(7);
  });
});
