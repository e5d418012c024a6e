import { describe, expect, it } from '@jest/globals';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { McpToolEntry } from '../registry/mcp-tool.registry.js';
import type { McpResourceEntry } from '../registry/mcp-resource.registry.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import type { ChannelContext } from '../context/channel-context.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpExtensions, withExtensionCapability } from './mcp-extensions.js';

const tool = (name: string, extensions?: Record<string, unknown>) =>
  ({ name, descriptor: { name }, extensions }) as unknown as McpToolEntry;
const resource = (uri: string) => ({ uri, descriptor: { uri } }) as unknown as McpResourceEntry;
const handler: McpHandlerFn = async () => 'read';

describe('McpExtensions', () => {
  it('lists with every extension’s filter and the base filter, and chains the descriptors', () => {
    const extensions = new McpExtensions();
    extensions.add({
      name: 'a',
      toolsShownTo: () => ({
        filter: (entry) => entry.name !== 'hidden-by-a',
        describe: (_entry, descriptor) => ({ ...descriptor, a: true }),
      }),
    });
    extensions.add({
      name: 'b',
      toolsShownTo: (caller) =>
        caller.era === 'modern'
          ? undefined
          : { describe: (_entry, descriptor) => ({ ...descriptor, b: descriptor.a === true }) },
    });
    const view = extensions.toolsShownTo({ era: 'legacy' }, (entry) => entry.name !== 'forbidden');
    const names = ['shown', 'hidden-by-a', 'forbidden'].map((name) => tool(name)).filter(view.filter!);
    expect(names.map((entry) => view.describe!(entry))).toEqual([{ name: 'shown', a: true, b: true }]);
    expect(extensions.toolsShownTo({ era: 'modern' }).describe!(tool('x'))).toEqual({ name: 'x', a: true });
  });

  it('leaves a list as it is when no extension has a view of it', () => {
    const extensions = new McpExtensions();
    const base = (entry: McpResourceEntry) => entry.uri !== 'x://no';
    extensions.add({ name: 'a', resourcesShownTo: () => undefined });
    expect(extensions.resourcesShownTo({}, base)).toEqual({ filter: base, describe: undefined });
    expect(extensions.resourcesShownTo({})).toEqual({ filter: undefined, describe: undefined });
    extensions.add({ name: 'b', resourcesShownTo: () => ({ filter: (entry) => entry.uri !== 'x://b' }) });
    const filter = extensions.resourcesShownTo({}, base).filter!;
    expect(
      ['x://ok', 'x://no', 'x://b']
        .map(resource)
        .filter(filter)
        .map((entry) => entry.uri),
    ).toEqual(['x://ok']);
  });

  it('answers a tool as callable only when every extension does', () => {
    const extensions = new McpExtensions();
    expect(extensions.callable(tool('t'), {})).toBe(true);
    extensions.add({ name: 'a', callable: () => true });
    extensions.add({ name: 'b', callable: (entry) => entry.name !== 'app-only' });
    expect(extensions.callable(tool('t'), {})).toBe(true);
    expect(extensions.callable(tool('app-only'), {})).toBe(false);
  });

  it('runs a call with the runner of the first extension that takes it, else in its request', async () => {
    const extensions = new McpExtensions();
    const ctx = {} as ChannelContext;
    expect(extensions.runsCall(tool('t'), {}, ctx)).toBeUndefined();
    extensions.add({ name: 'a', runsCall: () => undefined });
    extensions.add({
      name: 'b',
      runsCall: (entry) =>
        entry.name === 'long' ? async (execute) => ({ by: 'b', ...(await execute(ctx)) }) : undefined,
    });
    extensions.add({ name: 'c', runsCall: () => async () => ({ by: 'c' }) });
    extensions.add({
      name: 'd',
      runsCall: () => {
        throw new Error('never asked: c took every call');
      },
    });
    const runner = extensions.runsCall(tool('long'), {}, ctx)!;
    expect(await runner(async () => ({ ran: true }))).toEqual({ by: 'b', ran: true });
    expect(await extensions.runsCall(tool('short'), {}, ctx)!(async () => ({}))).toEqual({ by: 'c' });
  });

  it('asks each step only of the extensions whose stepsFor takes part in the tool, once per tool', async () => {
    const extensions = new McpExtensions();
    const ctx = {} as ChannelContext;
    const asked: string[] = [];
    let planned = 0;
    extensions.add({
      name: 'ui',
      stepsFor: (entry) => (planned++, { callable: entry.name === 'app-only' }),
      callable: (entry) => (asked.push(`callable ${entry.name}`), false),
    });
    extensions.add({
      name: 'tasks',
      stepsFor: (entry) => ({ runsCall: entry.name === 'long' || { whenParam: 'task' } }),
      runsCall: (entry) => (asked.push(`runsCall ${entry.name}`), undefined),
    });
    const plain = tool('plain');
    expect(extensions.planOf(plain)).toEqual({ runsCall: expect.any(Function), runsCallWhen: 'task' });
    expect(extensions.plans.get(plain)).toBe(extensions.planOf(plain));
    expect(extensions.callable(plain, {})).toBe(true);
    expect(extensions.runsCall(plain, {}, ctx)).toBeUndefined();
    expect(asked).toEqual([]);
    expect(extensions.runsCall(plain, { task: {} }, ctx)).toBeUndefined();
    expect(asked).toEqual(['runsCall plain']);
    const appOnly = tool('app-only');
    expect(extensions.callable(appOnly, {})).toBe(false);
    const long = tool('long');
    extensions.runsCall(long, {}, ctx);
    expect(asked).toEqual(['runsCall plain', 'callable app-only', 'runsCall long']);
    expect(planned).toBe(3);
    // An extension plugged later takes part in the plans made from then on.
    extensions.add({ name: 'late', callable: () => false });
    expect(extensions.callable(plain, {})).toBe(false);
  });

  it('gathers every extension’s part of a listen filter, in the order they were plugged in', async () => {
    const extensions = new McpExtensions();
    const ctx = {} as McpRequestContext;
    expect(await extensions.listen({ toolsListChanged: true }, ctx)).toEqual([]);
    extensions.add({
      name: 'a',
      listen: async (filter) => (filter.aIds ? { asked: true, honoured: { aIds: [] } } : undefined),
    });
    extensions.add({ name: 'b', listen: async () => ({ asked: false, honoured: { b: true } }) });
    extensions.add({ name: 'c' });
    expect(await extensions.listen({ aIds: ['x'] }, ctx)).toEqual([
      { asked: true, honoured: { aIds: [] } },
      { asked: false, honoured: { b: true } },
    ]);
    expect(await extensions.listen({}, ctx)).toEqual([{ asked: false, honoured: { b: true } }]);
  });

  it('runs declarations through every extension, keeping each one’s data under its name', () => {
    const extensions = new McpExtensions();
    extensions.add({
      name: 'a',
      declareTool: ({ descriptor }) => ({ descriptor: { ...descriptor, a: 1 }, data: 'kept by a' }),
      declareResource: (declared) => ({ ...declared, metadata: { ...declared.metadata, mimeType: 'text/a' } }),
    });
    extensions.add({
      name: 'b',
      declareTool: ({ descriptor }) => ({ descriptor: { ...descriptor, b: descriptor.a } }),
    });
    extensions.add({
      name: 'c',
      declareTemplate: ({ uriTemplate, source }) => {
        if (uriTemplate.startsWith('c:')) throw new McpDefinitionError(`${source}: no c: templates`);
      },
    });
    const declared = extensions.declareTool({
      options: { name: 't', description: 'T' },
      descriptor: { name: 't' },
      source: 'X.t',
    });
    expect(declared).toEqual({ descriptor: { name: 't', a: 1, b: 1 }, extensions: { a: 'kept by a' } });
    expect(
      new McpExtensions().declareTool({
        options: { name: 't', description: 'T' },
        descriptor: { name: 't' },
        source: 'X.t',
      }),
    ).toEqual({
      descriptor: { name: 't' },
    });
    const read = extensions.declareResource({ uri: 'x://r', metadata: {}, handler, source: 'X.r' });
    expect(read.metadata.mimeType).toBe('text/a');
    expect(() => extensions.declareTemplate({ uriTemplate: 'c:{x}', metadata: {}, source: 'X.c' })).toThrow(
      'X.c: no c: templates',
    );
  });

  it('gathers what each extension finds on a provider class', async () => {
    const extensions = new McpExtensions();
    class Provider {}
    extensions.add({ name: 'a', discover: async () => [{ uri: 'x://a', metadata: {}, handler, source: 'Provider' }] });
    extensions.add({ name: 'b', discover: async ({ classRef }) => (classRef === Provider ? [] : []) });
    const found = await extensions.discover({ classRef: Provider, instance: new Provider() });
    expect(found.map((entry) => entry.uri)).toEqual(['x://a']);
  });

  it('adds an extension capability beside the others', () => {
    expect(withExtensionCapability({ tools: {} }, 'a', { on: true })).toEqual({
      tools: {},
      extensions: { a: { on: true } },
    });
    expect(withExtensionCapability({ extensions: { b: {} } }, 'a', {})).toEqual({ extensions: { b: {}, a: {} } });
  });
});
