import { describe, expect, it } from '@jest/globals';
import { McpClientUnreachableError } from '../errors/client-request.errors.js';
import { forwardedReadContext } from './forwarded-read.context.js';

function open() {
  return forwardedReadContext(
    'fwd://note',
    {
      requestId: 3,
      sessionId: 's-1',
      protocolVersion: '2025-11-25',
      era: 'legacy',
      transport: 'streamable-http',
      auth: { issuer: 'https://issuer', subject: 'alice', scopes: ['read'], audience: [], claims: {} },
      meta: { progressToken: 'tok' },
    },
    new AbortController().signal,
  );
}

describe('forwardedReadContext', () => {
  it('shows the facts the reading instance forwarded, and nothing of a client it cannot reach', () => {
    const ctx = open();
    expect(ctx).toMatchObject({
      method: 'resources/read',
      requestId: 3,
      sessionId: 's-1',
      era: 'legacy',
      transport: 'streamable-http',
      meta: { progressToken: 'tok' },
    });
    expect(ctx.auth?.subject).toBe('alice');
    expect(ctx.session).toBeUndefined();
    expect(ctx.clientCapabilities).toBeUndefined();
    expect(ctx.task).toBeUndefined();
    expect(ctx.becomeTask).toBeUndefined();
  });

  it('keeps round state for the read alone', () => {
    const ctx = open();
    ctx.roundState.set('k', 1);
    expect(ctx.roundState.get('k')).toBe(1);
    ctx.roundState.set('k', undefined);
    expect(ctx.roundState.get('k')).toBeUndefined();
  });

  it('throws McpClientUnreachableError, naming the call, on progress and on every ask', async () => {
    const ctx = open();
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['ctx.reportProgress', () => ctx.reportProgress(1)],
      ['ctx.elicit', () => ctx.elicit({ message: 'm', requestedSchema: { type: 'object', properties: {} } })],
      ['ctx.sample', () => ctx.sample({ messages: [], maxTokens: 1 })],
      ['ctx.listRoots', () => ctx.listRoots()],
    ];
    for (const [name, call] of calls) {
      const error = await call().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(McpClientUnreachableError);
      expect((error as Error).message).toContain(name);
    }
  });

  it('drops log messages and notifications', async () => {
    const ctx = open();
    await expect(ctx.log('info', 'x')).resolves.toBeUndefined();
    await expect(ctx.sendNotification('notifications/message')).resolves.toBeUndefined();
  });
});
