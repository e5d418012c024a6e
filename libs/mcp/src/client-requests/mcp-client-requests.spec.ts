import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { resolveMcpOptions } from '../mcp-options.resolver.js';
import type { McpSessionManager } from '../session/mcp-session.manager.js';
import { McpClientRequestTimeoutError, McpClientUnreachableError } from '../errors/client-request.errors.js';
import { LocalInstanceMessaging } from '../backend/in-memory/local-instance-messaging.js';
import { McpClientRequests } from './mcp-client-requests.js';

const TIMEOUT_MS = 60_000;
const SESSION = 'session-a';

/** The client requests service alone: the session manager only has to take an end listener. */
function createRequests(): McpClientRequests {
  const options = resolveMcpOptions({
    serverInfo: { name: 't', version: '1' },
    limits: { clientRequestTimeoutMs: TIMEOUT_MS },
  });
  const sessions = { onSessionEnd: () => undefined } as unknown as McpSessionManager;
  return new McpClientRequests(options, sessions, new LocalInstanceMessaging());
}

/** Resolves with how the promise settled, without letting any timer run. */
async function settledNow(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown } | 'pending'> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  // Microtasks only: a request waiting for its timeout is still pending after them.
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return Promise.race([outcome, Promise.resolve('pending' as const)]);
}

describe('McpClientRequests.request', () => {
  let requests: McpClientRequests;

  beforeEach(() => {
    jest.useFakeTimers();
    requests = createRequests();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('fails at once, leaving no timer or pending entry, when nothing can carry the request', async () => {
    const sent: string[] = [];
    const asking = requests.request(SESSION, 'elicitation/create', {}, { send: (json) => (sent.push(json), false) });

    const outcome = await settledNow(asking);
    expect(outcome).toEqual({ error: expect.any(McpClientUnreachableError) });
    expect((outcome as { error: Error }).error.message).toBe(
      'Cannot send elicitation/create to the client: no open channel to the client (a GET stream or an SSE answer)',
    );
    expect(jest.getTimerCount()).toBe(0);
    const { id } = JSON.parse(sent[0]) as { id: string };
    expect(requests.receive(SESSION, { jsonrpc: '2.0', id, result: {} })).toBe(false);
  });

  it('fails at once with the error send threw, leaving no timer or pending entry', async () => {
    let id: string | undefined;
    const broken = new Error('the socket is gone');
    const asking = requests.request(
      SESSION,
      'sampling/createMessage',
      {},
      {
        send: (json) => {
          id = (JSON.parse(json) as { id: string }).id;
          throw broken;
        },
      },
    );

    expect(await settledNow(asking)).toEqual({ error: broken });
    expect(jest.getTimerCount()).toBe(0);
    expect(requests.receive(SESSION, { jsonrpc: '2.0', id: id!, result: {} })).toBe(false);
  });

  it('fails at once when its params cannot be serialized, and sends nothing', async () => {
    const send = jest.fn((_json: string) => true);
    const asking = requests.request(SESSION, 'sampling/createMessage', { n: 1n }, { send });

    expect(await settledNow(asking)).toEqual({ error: expect.any(TypeError) });
    expect(send).not.toHaveBeenCalled();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('waits for the answer of a request that went out, and only the asking session’s', async () => {
    let id = '';
    const asking = requests.request(
      SESSION,
      'roots/list',
      {},
      { send: (json) => ((id = (JSON.parse(json) as { id: string }).id), true) },
    );

    expect(await settledNow(asking)).toBe('pending');
    expect(jest.getTimerCount()).toBe(1);
    expect(requests.receive('session-b', { jsonrpc: '2.0', id, result: { roots: [] } })).toBe(false);
    expect(requests.receive(SESSION, { jsonrpc: '2.0', id, result: { roots: [] } })).toBe(true);
    expect(await asking).toEqual({ roots: [] });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('times out after clientRequestTimeoutMs and withdraws the request', async () => {
    const sent: string[] = [];
    const asking = requests.request(SESSION, 'roots/list', {}, { send: (json) => (sent.push(json), true) });
    const outcome = asking.catch((error: unknown) => error);

    jest.advanceTimersByTime(TIMEOUT_MS);
    expect(await outcome).toEqual(expect.any(McpClientRequestTimeoutError));
    const { id } = JSON.parse(sent[0]) as { id: string };
    expect(JSON.parse(sent[1])).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'Timed out' },
    });
  });
});
