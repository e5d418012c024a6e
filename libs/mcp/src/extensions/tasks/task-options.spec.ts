import { describe, expect, it } from '@jest/globals';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { resolveMcpOptions } from '../../mcp-options.resolver.js';

const resolve = (options: Record<string, unknown> = {}) =>
  resolveMcpOptions({ serverInfo: { name: 't', version: '1' }, ...options });

describe('the task options', () => {
  it('default to an hour to live (at most a day), polls every second, a 100 ms handoff and bounded budgets', () => {
    expect(resolve()).toMatchObject({
      taskTtlMs: 3_600_000,
      maxTaskTtlMs: 86_400_000,
      taskPollIntervalMs: 1_000,
      taskHandoffMs: 100,
      maxTasksPerPrincipal: 100,
      maxTasksPerInstance: 1_000,
      maxTaskResultBytes: 1_048_576,
      taskShutdownGraceMs: 5_000,
      maxTaskBytesPerCaller: 16_777_216,
      maxStoredTasks: 10_000,
      maxStoredTaskBytes: 268_435_456,
      taskResultTtlMs: 600_000,
    });
  });

  it("refuse a caller's budget that reaches the global bound: no single caller may fill the store", () => {
    expect(() => resolve({ tasks: { maxPerCaller: 50, maxStored: 50 } })).toThrow(
      /'tasks\.maxPerCaller'.*'tasks\.maxStored'/,
    );
    expect(() => resolve({ tasks: { maxBytesPerCaller: 2_000_000_000 } })).toThrow(/'tasks\.maxBytesPerCaller'/);
    expect(resolve({ tasks: { maxPerCaller: 49, maxStored: 50 } })).toMatchObject({ maxStoredTasks: 50 });
  });

  it('never let the default time to live pass the longest one; zero handoff and grace are allowed', () => {
    expect(resolve({ tasks: { ttlMs: 10_000, maxTtlMs: 5_000 } })).toMatchObject({ taskTtlMs: 5_000 });
    expect(resolve({ tasks: { handoffMs: 0, shutdownGraceMs: 0 } })).toMatchObject({
      taskHandoffMs: 0,
      taskShutdownGraceMs: 0,
    });
  });

  it.each([
    ['maxPerCaller', 0],
    ['maxPerInstance', 1.5],
    ['maxResultBytes', -1],
    ['pollIntervalMs', Number.NaN],
    ['handoffMs', -1],
    ['shutdownGraceMs', Infinity],
    ['maxTtlMs', 2 ** 31],
    ['maxBytesPerCaller', 0],
    ['maxStored', -5],
    ['maxStoredBytes', 1.5],
    ['resultTtlMs', 2 ** 31],
  ])('refuses tasks.%s = %p at startup, naming it', (name, value) => {
    expect(() => resolve({ tasks: { [name]: value } })).toThrow(McpDefinitionError);
    expect(() => resolve({ tasks: { [name]: value } })).toThrow(new RegExp(`'tasks\\.${name}'`));
  });

  it('refuses a name the tasks group does not know', () => {
    expect(() => resolve({ tasks: { ttl: 5 } })).toThrow(/tasks/);
  });
});
