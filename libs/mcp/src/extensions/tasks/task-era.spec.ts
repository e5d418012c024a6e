import { describe, expect, it } from '@jest/globals';
import type { McpTaskSupport } from '../../model/task-support.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { TASKS_EXTENSION } from './task-era.js';
import { taskEraOf } from './task-eras.js';

/** The mode of a call, by the task rules of the request's era. */
const taskModeOf = (
  support: McpTaskSupport | undefined,
  params: Record<string, unknown>,
  ctx: Pick<McpRequestContext, 'era' | 'clientCapabilities'>,
  serverDeclaresTasks: boolean,
) => taskEraOf(ctx.era).mode(support, params, ctx.clientCapabilities, () => serverDeclaresTasks);

const legacy = { era: 'legacy' as const, clientCapabilities: {} };
const modern = (extension: boolean) => ({
  era: 'modern' as const,
  clientCapabilities: extension ? { extensions: { [TASKS_EXTENSION]: {} } } : { extensions: {} },
});

const errorOf = (run: () => unknown): { code?: number; data?: unknown } | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    const exception = error as { toJsonRpcError?: () => { code: number; data?: unknown } };
    return exception.toJsonRpcError?.() ?? { code: -1 };
  }
};

describe('the task mode of a call, by era (McpTaskEra.mode)', () => {
  describe('2025-11-25: the client asks with params.task', () => {
    it.each<[McpTaskSupport | undefined, boolean, string]>([
      ['optional', true, 'task'],
      ['required', true, 'task'],
      ['optional', false, 'inline'],
    ])('%s with params.task %s runs %s', (support, withTask, kind) => {
      const params = withTask ? { name: 't', task: {} } : { name: 't' };
      expect(taskModeOf(support, params, legacy, true).kind).toBe(kind);
    });

    it('a required tool without params.task, and a forbidden one with it, are -32601', () => {
      expect(errorOf(() => taskModeOf('required', { name: 't' }, legacy, true))?.code).toBe(-32601);
      expect(errorOf(() => taskModeOf('forbidden', { name: 't', task: {} }, legacy, true))?.code).toBe(-32601);
      expect(errorOf(() => taskModeOf(undefined, { name: 't', task: {} }, legacy, true))?.code).toBe(-32601);
    });

    it('a server that declares no tasks ignores params.task (the call runs in its request)', () => {
      expect(taskModeOf(undefined, { name: 't', task: { ttl: 5 } }, legacy, false).kind).toBe('inline');
    });

    it('takes the asked ttl, and refuses a malformed task or ttl with -32602', () => {
      expect(taskModeOf('optional', { name: 't', task: { ttl: 60_000 } }, legacy, true)).toEqual({
        kind: 'task',
        requestedTtlMs: 60_000,
      });
      expect(taskModeOf('optional', { name: 't', task: { ttl: null } }, legacy, true)).toEqual({ kind: 'task' });
      expect(errorOf(() => taskModeOf('optional', { name: 't', task: 'yes' }, legacy, true))?.code).toBe(-32602);
      expect(errorOf(() => taskModeOf('optional', { name: 't', task: { ttl: -1 } }, legacy, true))?.code).toBe(-32602);
      expect(errorOf(() => taskModeOf('optional', { name: 't', task: { ttl: '1' } }, legacy, true))?.code).toBe(-32602);
    });
  });

  describe('2026-07-28: the tasks extension, server-directed', () => {
    it.each<[McpTaskSupport | undefined, boolean, string]>([
      ['optional', true, 'handoff'],
      ['required', true, 'handoff'],
      ['optional', false, 'inline'],
      ['forbidden', true, 'inline'],
      [undefined, true, 'inline'],
    ])('%s with the extension declared %s runs %s', (support, extension, kind) => {
      expect(taskModeOf(support, { name: 't' }, modern(extension), true).kind).toBe(kind);
    });

    it('a required tool without the extension is -32021 naming it', () => {
      expect(errorOf(() => taskModeOf('required', { name: 't' }, modern(false), true))).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });
    });

    it('ignores a legacy params.task: it neither asks for a task nor refuses one', () => {
      expect(taskModeOf('forbidden', { name: 't', task: { ttl: 1 } }, modern(true), true).kind).toBe('inline');
      expect(taskModeOf('optional', { name: 't', task: 'not even an object' }, modern(false), true).kind).toBe(
        'inline',
      );
    });

    it('a malformed extensions member declares nothing', () => {
      const odd = { era: 'modern' as const, clientCapabilities: { extensions: { [TASKS_EXTENSION]: true } } };
      expect(taskModeOf('optional', { name: 't' }, odd, true).kind).toBe('inline');
    });
  });
});
