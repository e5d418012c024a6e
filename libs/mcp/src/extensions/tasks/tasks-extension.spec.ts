import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { McpTool } from '../../decorators/index.js';
import { McpApp } from '../apps/mcp-app.decorator.js';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { McpToolRegistry } from '../../registry/mcp-tool.registry.js';
import { compileMcpModule, httpContext, McpTestClient } from '../../testing/mcp-testing-module.js';
import { rejectionOf } from '../../testing/thrown.js';
import { McpAppsExtension } from '../apps/mcp-apps.extension.js';
import { McpTasksExtension } from './tasks.extension.js';

const BOARD = 'ui://test/board';
const APPS = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

@McpApp({ uri: BOARD, name: 'Board', html: '<!DOCTYPE html><html><body>board</body></html>' })
@Injectable()
class BoardApp {}

@Injectable()
class Tools {
  @McpTool({
    name: 'board.build',
    description: 'A long build with a view',
    ui: { resourceUri: BOARD },
    taskSupport: 'optional',
  })
  build() {
    return 'built';
  }

  @McpTool({ name: 'never', description: 'Never a task', taskSupport: 'forbidden' })
  never() {
    return 'inline';
  }

  @McpTool({ name: 'plain', description: 'No task support declared' })
  plain() {
    return 'plain';
  }
}

const modern = (capabilities: Record<string, unknown>) => ({
  _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  },
});

type Listed = { name: string; execution?: unknown; _meta?: Record<string, unknown> };

/**
 * A tool's `taskSupport` is declared through the tasks extension (kept on its entry, not a field
 * of the registry), and shown in 2025-11-25 lists as `execution.taskSupport`, over what the
 * other extensions show of it.
 */
describe('the tasks extension’s tool metadata', () => {
  let client: McpTestClient;
  beforeAll(async () => {
    client = await McpTestClient.create({ providers: [BoardApp, Tools] });
  });
  afterAll(() => client.close());

  const legacyList = async (capabilities: Record<string, unknown>) => {
    const ctx = httpContext();
    await client.result(
      'initialize',
      { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'host', version: '1' } },
      ctx,
    );
    return (await client.result('tools/list', {}, ctx)).tools as Listed[];
  };

  it('keeps taskSupport under the extension’s name on the entry', () => {
    const registry = client.module.get(McpToolRegistry);
    expect(registry.get('board.build')?.extensions).toMatchObject({ 'io.modelcontextprotocol/tasks': 'optional' });
    expect(registry.get('never')?.extensions).toEqual({ 'io.modelcontextprotocol/tasks': 'forbidden' });
    expect(registry.get('plain')?.extensions).toBeUndefined();
    expect('taskSupport' in registry.get('board.build')!).toBe(false);
  });

  it('lists execution.taskSupport in 2025-11-25, with or without the UI metadata a host gets', async () => {
    for (const capabilities of [{}, { extensions: APPS }]) {
      const tools = await legacyList(capabilities);
      const build = tools.find((tool) => tool.name === 'board.build')!;
      expect(build.execution).toEqual({ taskSupport: 'optional' });
      expect(build._meta?.ui !== undefined).toBe(capabilities.extensions !== undefined);
      expect(tools.find((tool) => tool.name === 'never')!.execution).toEqual({ taskSupport: 'forbidden' });
      expect(tools.find((tool) => tool.name === 'plain')!.execution).toBeUndefined();
    }
  });

  it('lists no execution in the modern era', async () => {
    const tools = (await client.result('tools/list', modern({}))).tools as Listed[];
    expect(tools.every((tool) => tool.execution === undefined)).toBe(true);
  });

  it('fails the start on a taskSupport that is none of its values, naming the tool', async () => {
    @Injectable()
    class Bad {
      @McpTool({ name: 'bad', description: 'Bad', taskSupport: 'sometimes' as never })
      bad() {
        return 'bad';
      }
    }
    let module: TestingModule | undefined;
    try {
      module = await compileMcpModule({ providers: [Bad] });
      const error = await rejectionOf(module.init());
      expect(error).toBeInstanceOf(McpDefinitionError);
      expect((error as Error).message).toBe(
        "Bad.bad: taskSupport must be one of forbidden, optional, required, got 'sometimes'",
      );
    } finally {
      await module?.close().catch(() => undefined);
    }
  });

  /**
   * Which extension steps a tool's call takes is decided once per tool (`stepsFor`, the tool's
   * plan): a call of a tool without task support and without an app-only UI asks neither the
   * tasks extension nor MCP Apps anything, in either era; only a 2025-11-25 call that carries
   * `params.task` (which such a tool must refuse) reaches the tasks extension.
   */
  it('asks neither extension anything for a call of a tool that takes no part in them', async () => {
    const runsCall = jest.spyOn(client.module.get(McpTasksExtension), 'runsCall');
    const callable = jest.spyOn(client.module.get(McpAppsExtension), 'callable');
    try {
      const ctx = httpContext();
      await client.result(
        'initialize',
        { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
        ctx,
      );
      for (const name of ['plain', 'never']) {
        expect(await client.result('tools/call', { name }, ctx)).toHaveProperty('content');
        expect(
          await client.result('tools/call', {
            name,
            ...modern({ extensions: { 'io.modelcontextprotocol/tasks': {} } }),
          }),
        ).toHaveProperty('content');
      }
      expect(runsCall).not.toHaveBeenCalled();
      // A 2025-11-25 call asking a task of a tool that never runs as one: the tasks extension refuses it.
      expect((await client.error('tools/call', { name: 'never', task: {} }, ctx)).code).toBe(-32601);
      expect(runsCall).toHaveBeenCalledTimes(1);
      // A tool that supports tasks asks it on every call; its UI is not app-only, so MCP Apps is never asked.
      await client.result('tools/call', { name: 'board.build' }, ctx);
      expect(runsCall).toHaveBeenCalledTimes(2);
      expect(callable).not.toHaveBeenCalled();
    } finally {
      runsCall.mockRestore();
      callable.mockRestore();
    }
  });
});
