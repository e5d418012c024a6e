import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { InMemoryRequestStateNonces } from '../../backend/in-memory/in-memory-request-state-nonces.js';
import { LocalInstanceMessaging } from '../../backend/in-memory/local-instance-messaging.js';
import type { McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import type { McpRequestStateNonces } from '../../backend/mcp-request-state-nonces.js';
import type { McpModuleOptions } from '../../interfaces/mcp-module-options.interface.js';
import { resolveMcpOptions } from '../../mcp-options.resolver.js';
import { rejectionOf } from '../../testing/thrown.js';
import type { InputRound } from './input-round.js';
import { McpModernResults } from './modern-results.js';
import { McpMrtr } from './mrtr.service.js';

/** `openRound` as a promise, whether it opened at once or asynchronously (a sync throw rejects too). */
const open = async (mrtr: McpMrtr, ...args: Parameters<McpMrtr['openRound']>) => mrtr.openRound(...args);

const SERVER_INFO = { name: 't', version: '1' };
const KEYS = { modern: { requestStateKeys: ['k'.repeat(32)] } };

/** Messaging of a backend that spans instances (only its class matters here). */
const shared: McpInstanceMessaging = { instanceId: 'i1', send: () => undefined, on: () => undefined };

function mrtrOf(
  options: Partial<McpModuleOptions> = KEYS,
  messaging: McpInstanceMessaging = new LocalInstanceMessaging(),
  nonces: McpRequestStateNonces | null = new InMemoryRequestStateNonces(),
): McpMrtr {
  const resolved = resolveMcpOptions({ serverInfo: SERVER_INFO, ...options });
  return new McpMrtr(resolved, messaging, new McpModernResults(resolved), nonces);
}

const request = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 'x' } };
const ask = { mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: {} } };
const accept = (word: string) => ({ action: 'accept', content: { word } });

/** Asks `keys` in `round` (each pending ask ends when the round closes) and seals the round. */
async function closeAsking(mrtr: McpMrtr, round: InputRound, keys: string[]): Promise<string> {
  const pending = keys.map((key) => round.ask('elicitation/create', ask, key).catch(() => undefined));
  await round.race(new Promise(() => undefined), 'closed');
  await Promise.all(pending);
  return mrtr.inputRequired(round, request, request.params).requestState as string;
}

describe('McpMrtr signing keys and replay guard', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const warnings = () => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

  it('one process without keys signs with a random key, silently', () => {
    const warn = warnings();
    mrtrOf({});
    expect(warn).not.toHaveBeenCalled();
  });

  it('a shared backend without keys warns that only this instance can continue a round', () => {
    const warn = warnings();
    mrtrOf({}, shared);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain('requestStateKeys');
  });

  it('a shared backend without a nonce store warns that a state could be used once per instance', () => {
    const warn = warnings();
    mrtrOf(KEYS, shared, null);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain('requestStateNonces');
  });

  it('a shared backend with keys and nonces is quiet, and a state sealed on one instance opens once on another', async () => {
    const warn = warnings();
    const nonces = new InMemoryRequestStateNonces();
    const a = mrtrOf(KEYS, shared, nonces);
    const b = mrtrOf(KEYS, shared, nonces);
    expect(warn).not.toHaveBeenCalled();
    const round = await a.openRound(request, request.params);
    round.state.step = 1;
    const requestState = await closeAsking(a, round, ['confirm']);
    const retry = { ...request.params, requestState };
    expect((await b.openRound(request, retry)).state).toEqual({ step: 1 });
    expect(await rejectionOf(open(a, request, retry))).toMatchObject({
      code: -32602,
      detail: 'Invalid requestState: it was already used; start the request again',
    });
  });

  it('takes no inputResponses without a requestState', async () => {
    const mrtr = mrtrOf();
    const round = await mrtr.openRound(request, { ...request.params, inputResponses: { confirm: accept('yes') } });
    const confirm = round.ask('elicitation/create', ask, 'confirm');
    expect(await round.race(new Promise(() => undefined), 'closed')).toBe('closed');
    await expect(confirm).rejects.toThrow('Input required');
    expect(Object.keys(round.inputRequests())).toEqual(['confirm']);
  });

  it('takes only the answers to the keys the state asked', async () => {
    const mrtr = mrtrOf();
    const requestState = await closeAsking(mrtr, await mrtr.openRound(request, request.params), ['first']);
    const early = { first: accept('one'), second: accept('two') };
    const round = await mrtr.openRound(request, { ...request.params, requestState, inputResponses: early });
    expect(await round.ask('elicitation/create', ask, 'first')).toEqual(accept('one'));
    const second = round.ask('elicitation/create', ask, 'second');
    expect(await round.race(new Promise(() => undefined), 'closed')).toBe('closed');
    await expect(second).rejects.toThrow('Input required');
  });

  it('a retry cannot swap an answer signed into the state for another under the same key', async () => {
    const mrtr = mrtrOf();
    const first = await mrtr.openRound(request, request.params);
    const state1 = await closeAsking(mrtr, first, ['confirm']);
    const second = await mrtr.openRound(request, {
      ...request.params,
      requestState: state1,
      inputResponses: { confirm: accept('yes') },
    });
    expect(await second.ask('elicitation/create', ask, 'confirm')).toEqual(accept('yes'));
    const state2 = await closeAsking(mrtr, second, ['more']);

    const retry = {
      ...request.params,
      requestState: state2,
      inputResponses: { confirm: accept('no'), more: accept('x') },
    };
    const third = await mrtr.openRound(request, retry);
    expect(await third.ask('elicitation/create', ask, 'confirm')).toEqual(accept('yes'));
    expect(await third.ask('elicitation/create', ask, 'more')).toEqual(accept('x'));
  });

  it('refuses answers nested deeper than maxArgumentDepth, before the state is used', async () => {
    const mrtr = mrtrOf({ ...KEYS, limits: { maxArgumentDepth: 4 } });
    const requestState = await closeAsking(mrtr, await mrtr.openRound(request, request.params), ['confirm']);
    const deep = { action: 'accept', content: { a: { b: { c: 1 } } } };
    const refused = await rejectionOf(
      open(mrtr, request, { ...request.params, requestState, inputResponses: { confirm: deep } }),
    );
    expect(refused).toMatchObject({ code: -32602 });
    expect(String((refused as { detail: string }).detail)).toContain('inputResponses: confirm is nested deeper than 4');
    // Refused before its nonce was consumed: the same state with a fitting answer still opens.
    const fitting = { action: 'accept', content: { a: 1 } };
    const round = await mrtr.openRound(request, {
      ...request.params,
      requestState,
      inputResponses: { confirm: fitting },
    });
    expect(await round.ask('elicitation/create', ask, 'confirm')).toEqual(fitting);
  });

  it('does not consume the nonce of a state refused for its principal: the owner still continues', async () => {
    const mrtr = mrtrOf();
    const first = await mrtr.openRound(request, request.params, 'alice');
    const pending = first.ask('elicitation/create', ask, 'confirm').catch(() => undefined);
    await first.race(new Promise(() => undefined), 'closed');
    await pending;
    const { requestState } = mrtr.inputRequired(first, request, request.params, 'alice');
    const retry = { ...request.params, requestState, inputResponses: { confirm: accept('yes') } };
    expect(await rejectionOf(open(mrtr, request, retry, 'mallory'))).toMatchObject({ code: -32602 });
    const owner = await mrtr.openRound(request, retry, 'alice');
    expect(await owner.ask('elicitation/create', ask, 'confirm')).toEqual(accept('yes'));
  });

  it('gives a state five minutes by default (requestStateTtlMs)', async () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const mrtr = mrtrOf();
    const requestState = await closeAsking(mrtr, await mrtr.openRound(request, request.params), ['confirm']);
    const retry = { ...request.params, requestState };
    now.mockReturnValue(1_000_000 + 5 * 60_000 + 1);
    expect(await rejectionOf(open(mrtr, request, retry))).toMatchObject({
      detail: 'Invalid requestState: it has expired; start the request again',
    });
    now.mockReturnValue(1_000_000 + 5 * 60_000);
    expect((await mrtr.openRound(request, retry)).state).toEqual({});
  });

  it('passes a failure of the nonce store on (the backend error, answered 503), never the retry', async () => {
    const failing: McpRequestStateNonces = { consume: () => Promise.reject(new Error('down')) };
    const mrtr = mrtrOf(KEYS, new LocalInstanceMessaging(), failing);
    const requestState = await closeAsking(mrtr, await mrtr.openRound(request, request.params), ['confirm']);
    expect(await rejectionOf(open(mrtr, request, { ...request.params, requestState }))).toEqual(new Error('down'));
  });
});
