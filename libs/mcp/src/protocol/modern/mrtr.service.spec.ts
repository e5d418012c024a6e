import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { LocalInstanceMessaging } from '../../backend/in-memory/local-instance-messaging.js';
import type { McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import { resolveMcpOptions } from '../../mcp-options.resolver.js';
import { McpMrtr } from './mrtr.service.js';

const SERVER_INFO = { name: 't', version: '1' };

/** Messaging of a backend that spans instances (only its class matters here). */
const shared: McpInstanceMessaging = { instanceId: 'i1', send: () => undefined, on: () => undefined };

describe('McpMrtr signing keys', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const warnings = () => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

  it('one process without keys signs with a random key, silently', () => {
    const warn = warnings();
    new McpMrtr(resolveMcpOptions({ serverInfo: SERVER_INFO }), new LocalInstanceMessaging());
    expect(warn).not.toHaveBeenCalled();
  });

  it('a shared backend without keys warns that only this instance can continue a round', () => {
    const warn = warnings();
    new McpMrtr(resolveMcpOptions({ serverInfo: SERVER_INFO }), shared);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain('requestStateKeys');
  });

  it('a shared backend with keys is quiet, and a state sealed on one instance opens on another', () => {
    const warn = warnings();
    const options = resolveMcpOptions({ serverInfo: SERVER_INFO, requestStateKeys: ['k'.repeat(32)] });
    const a = new McpMrtr(options, shared);
    const b = new McpMrtr(options, shared);
    expect(warn).not.toHaveBeenCalled();
    const request = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 'x' } };
    const round = a.openRound(request, request.params);
    round.state.step = 1;
    const result = a.inputRequired(round, request, request.params);
    const retry = { ...request.params, requestState: result.requestState };
    expect(b.openRound(request, retry).state).toEqual({ step: 1 });
  });

  it('a retry cannot swap an answer signed into the state for another under the same key', async () => {
    const options = resolveMcpOptions({ serverInfo: SERVER_INFO, requestStateKeys: ['k'.repeat(32)] });
    const mrtr = new McpMrtr(options, new LocalInstanceMessaging());
    const request = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 'x' } };
    const ask = { mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: {} } };
    const accept = (word: string) => ({ action: 'accept', content: { word } });

    const first = mrtr.openRound(request, { ...request.params, inputResponses: { confirm: accept('yes') } });
    expect(await first.ask('elicitation/create', ask, 'confirm')).toEqual(accept('yes'));
    first.ask('elicitation/create', ask, 'more').catch(() => undefined);
    const { requestState } = mrtr.inputRequired(first, request, request.params);

    const retry = { ...request.params, requestState, inputResponses: { confirm: accept('no'), more: accept('x') } };
    const second = mrtr.openRound(request, retry);
    expect(await second.ask('elicitation/create', ask, 'confirm')).toEqual(accept('yes'));
    expect(await second.ask('elicitation/create', ask, 'more')).toEqual(accept('x'));
  });
});
