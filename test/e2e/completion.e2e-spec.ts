/**
 * `completion/complete` through the same Nest pipeline as the prompt or template it completes:
 * guards (class, method, global), interceptors, exception filters and request scope, over real
 * Streamable HTTP with the official SDK client.
 */
import { APP_GUARD } from '@nestjs/core';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startFixtureApp, type ConnectedClient, type FixtureApp } from '../fixtures/fixture-app.js';
import { FixtureState } from '../fixtures/fixture-state.js';
import { ClassDeniedCompletions, EnhancedCompletions } from '../fixtures/completing.prompts.js';
import { DENY_META_KEY, GlobalRecordingGuard } from '../fixtures/test.guard.js';
import { RequestScopedCompletions } from '../fixtures/request-scoped.tools.js';

/** Resolves to the McpError a promise rejects with (fails the test when it resolves). */
async function mcpErrorOf(promise: Promise<unknown>): Promise<McpError> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error }),
  );
  if ('resolved' in outcome) throw new Error(`Expected an MCP error, got ${JSON.stringify(outcome.resolved)}`);
  expect(outcome.rejected).toBeInstanceOf(McpError);
  return outcome.rejected as McpError;
}

const promptRef = (name: string) => ({ type: 'ref/prompt' as const, name });
const templateRef = (uri: string) => ({ type: 'ref/resource' as const, uri });

describe('completion through the Nest pipeline', () => {
  describe('guards, interceptors and filters of the prompt or template', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [FixtureState, ClassDeniedCompletions, EnhancedCompletions] });
      state = fixture.app.get(FixtureState);
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it('answers -32003 for a prompt argument of a class a guard denies, without running the completer', async () => {
      const error = await mcpErrorOf(
        mcp.client.complete({ ref: promptRef('class-denied-colour'), argument: { name: 'colour', value: 'r' } }),
      );

      expect(error.code).toBe(-32003);
      expect(state.count('class-denied-colour:complete')).toBe(0);
      expect(state.observedBy('DenyGuard')).toContainEqual(
        expect.objectContaining({ type: 'mcp', isMcp: true, handler: 'classDeniedColour' }),
      );
    });

    it('answers -32003 for a template variable of a class a guard denies, without running the completer', async () => {
      const error = await mcpErrorOf(
        mcp.client.complete({
          ref: templateRef('fixture://class-denied/{colour}'),
          argument: { name: 'colour', value: 'g' },
        }),
      );

      expect(error.code).toBe(-32003);
      expect(state.count('class-denied-template:complete')).toBe(0);
    });

    it('applies a guard on the prompt method to its completions too', async () => {
      const error = await mcpErrorOf(
        mcp.client.complete({ ref: promptRef('method-denied-colour'), argument: { name: 'colour', value: 'b' } }),
      );

      expect(error.code).toBe(-32003);
      expect(state.count('method-denied-colour:complete')).toBe(0);
    });

    it('shows guards the completion: the method, the prompt handler, and { name, value, arguments }', async () => {
      const result = await mcp.client.complete({
        ref: promptRef('inspected-colour'),
        argument: { name: 'colour', value: 'r' },
        context: { arguments: { shade: 'dark' } },
      });

      expect(result.completion).toEqual({ values: ['red'], total: 1, hasMore: false });
      expect(state.observedBy('InspectingGuard')).toEqual([
        {
          by: 'InspectingGuard',
          type: 'mcp',
          isMcp: true,
          handler: 'inspectedColour',
          args: { name: 'colour', value: 'r', arguments: { shade: 'dark' } },
          sessionId: mcp.sessionId,
          method: 'completion/complete',
        },
      ]);
    });

    it('runs the interceptors of the prompt method around the completer, with its values as the result', async () => {
      await mcp.client.complete({ ref: promptRef('inspected-colour'), argument: { name: 'colour', value: 'g' } });

      const around = state
        .observedBy('RecordingInterceptor')
        .filter((o) => o.method === 'completion/complete' && (o.args as { value?: string }).value === 'g');
      expect(around.map((o) => o.phase)).toEqual(['before', 'after']);
      expect(around[0]).toMatchObject({ type: 'mcp', handler: 'inspectedColour' });
      expect(around[1].result).toEqual(['green']);
    });

    it("answers with the McpException a template's filter makes of the completer's error", async () => {
      const error = await mcpErrorOf(
        mcp.client.complete({
          ref: templateRef('fixture://filtered/{colour}'),
          argument: { name: 'colour', value: '' },
        }),
      );

      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({ entity: 'colour', detail: 'Filtered in completion/complete: no colour here' });
      expect(state.count('filtered-template:complete')).toBe(1);
    });
  });

  describe('global guards (APP_GUARD)', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({
        providers: [FixtureState, EnhancedCompletions, { provide: APP_GUARD, useClass: GlobalRecordingGuard }],
      });
      state = fixture.app.get(FixtureState);
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it('run for completions and may refuse them', async () => {
      const allowed = await mcp.client.complete({
        ref: promptRef('open-colour'),
        argument: { name: 'colour', value: 'b' },
      });
      const refused = await mcpErrorOf(
        mcp.client.complete({
          ref: promptRef('open-colour'),
          argument: { name: 'colour', value: 'b' },
          _meta: { [DENY_META_KEY]: true },
        }),
      );

      expect(allowed.completion.values).toEqual(['blue']);
      expect(refused.code).toBe(-32003);
      expect(state.count('open-colour:complete')).toBe(1);
      expect(state.observedBy('GlobalRecordingGuard')).toContainEqual(
        expect.objectContaining({ type: 'mcp', handler: 'openColour', method: 'completion/complete' }),
      );
    });
  });

  describe('request-scoped providers', () => {
    let fixture: FixtureApp;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [RequestScopedCompletions] });
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it.each([
      ['a prompt argument', promptRef('scoped-prompt')],
      ['a template variable', templateRef('fixture://scoped/{who}')],
    ])('complete %s on a fresh instance per request, with REQUEST injected', async (_what, ref) => {
      const first = await mcp.client.complete({ ref, argument: { name: 'who', value: '' } });
      const second = await mcp.client.complete({ ref, argument: { name: 'who', value: '' } });

      const [firstInstance, firstSession] = first.completion.values;
      const [secondInstance, secondSession] = second.completion.values;
      expect(firstInstance).toMatch(/^instance-\d+$/);
      expect(secondInstance).toMatch(/^instance-\d+$/);
      expect(secondInstance).not.toBe(firstInstance);
      expect([firstSession, secondSession]).toEqual([`session-${mcp.sessionId}`, `session-${mcp.sessionId}`]);
    });
  });
});
