import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { McpResource, McpTool } from '../../decorators/index.js';
import { httpContext, McpTestClient } from '../../testing/mcp-testing-module.js';
import { withExtensionCapability } from '../../extension/mcp-extensions.js';
import type { McpExtension } from '../../extension/mcp-extension.interface.js';
import { McpExtensionHost } from './mcp-extension.host.js';

@Injectable()
class Declared {
  @McpTool({ name: 'open', description: 'Shown to everyone' })
  open() {
    return 'open';
  }

  @McpTool({ name: 'secret', description: 'Hidden from callers without example.com/secret' })
  secret() {
    return 'secret';
  }

  @McpResource({ uri: 'notes://a', name: 'A' })
  a() {
    return 'a';
  }
}

/** Whether the client declared the example extension (in `initialize` or the request's `_meta`). */
const declares = (capabilities: Readonly<Record<string, unknown>> | undefined) =>
  (capabilities?.extensions as Record<string, unknown> | undefined)?.['example.com/secret'] !== undefined;

const EXAMPLE: McpExtension = {
  name: 'example.com/secret',
  methods: () => ({ 'secret/echo': { run: async (params) => ({ echoed: params.text ?? null }) } }),
  capabilities: (capabilities, era) => withExtensionCapability(capabilities, 'example.com/secret', { era }),
  toolsShownTo: (caller) =>
    declares(caller.clientCapabilities) ? undefined : { filter: (tool) => tool.name !== 'secret' },
  callable: (tool, caller) => tool.name !== 'secret' || declares(caller.clientCapabilities),
  resourcesShownTo: () => ({
    describe: (_entry, descriptor) => ({ ...descriptor, _meta: { 'example.com/seen': true } }),
  }),
};

const modern = (capabilities: Record<string, unknown>) => ({
  _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  },
});
const DECLARING = { extensions: { 'example.com/secret': {} } };

describe('an extension plugged into a running module', () => {
  let client: McpTestClient;
  beforeAll(async () => {
    client = await McpTestClient.create({ providers: [Declared] });
    client.module.get(McpExtensionHost).plug(EXAMPLE);
  });
  afterAll(() => client.close());

  it('serves its method in both eras and declares its capability per era', async () => {
    expect(await client.result('secret/echo', { text: 'hi' })).toEqual({ echoed: 'hi' });
    expect(await client.result('secret/echo', { text: 'hi', ...modern({}) })).toMatchObject({ echoed: 'hi' });
    const discovered = await client.result('server/discover', modern({}));
    expect(discovered.capabilities).toMatchObject({ extensions: { 'example.com/secret': { era: 'modern' } } });
    const initialized = await client.result(
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
      httpContext(),
    );
    expect(initialized.capabilities).toMatchObject({ extensions: { 'example.com/secret': { era: 'legacy' } } });
  });

  it('hides a tool from callers it does not show it to, in the list and the call', async () => {
    const names = async (params: Record<string, unknown>) =>
      ((await client.result('tools/list', params)).tools as { name: string }[]).map((tool) => tool.name).sort();
    expect(await names(modern({}))).toEqual(['open']);
    expect(await names(modern(DECLARING))).toEqual(['open', 'secret']);
    const error = await client.error('tools/call', { name: 'secret', ...modern({}) });
    expect(error).toMatchObject({ code: -32602, data: { detail: "Unknown tool 'secret'" } });
    const called = await client.result('tools/call', { name: 'secret', ...modern(DECLARING) });
    expect(called.content).toEqual([{ type: 'text', text: 'secret' }]);
  });

  it('rewrites the resources/list items it describes', async () => {
    const listed = await client.result('resources/list', modern({}));
    expect(listed.resources).toEqual([{ uri: 'notes://a', name: 'A', _meta: { 'example.com/seen': true } }]);
  });
});
