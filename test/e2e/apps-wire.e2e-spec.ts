/**
 * MCP Apps on the wire: every tool and UI resource of the reference gateway and of the showcase
 * fixture, as the official SDK v2 client sees them in both protocol eras, checked against the
 * extension's own JSON schema (`@modelcontextprotocol/ext-apps/schema.json`) and its own host
 * helpers; and what a client that did not declare the extension sees instead.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, Resource, Tool } from '@modelcontextprotocol/client';
import {
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID } from '@modelcontextprotocol/ext-apps/server';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ShowcaseApps, ShowcaseRuntimeApp, SHOWCASE } from '../fixtures/apps.fixtures.js';
import { startFixtureApp } from '../fixtures/fixture-app.js';
import { startGateway } from '../support/gateway-app.js';
import {
  connectSdkV2,
  modeName,
  PINNED,
  type NegotiationMode,
  type SdkV2Connection,
} from '../support/sdk-v2-clients.js';

const schema = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/schema.json'), 'utf8'),
) as { $id: string };
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(schema);
const definition = (name: string): ValidateFunction => ajv.getSchema(`${schema.$id}#/$defs/${name}`)!;
const TOOL_META = definition('McpUiToolMeta');
const RESOURCE_META = definition('McpUiResourceMeta');

/** Fails with the schema's own errors, naming what was checked. */
function expectValid(validate: ValidateFunction, value: unknown, what: string): void {
  if (!validate(value))
    throw new Error(`${what} does not match the extension's schema: ${ajv.errorsText(validate.errors)}`);
}

const DECLARES_APPS = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

describe('the extension’s schema, as these tests use it', () => {
  it('refuses what MCP Apps forbids, so a passing check means something', () => {
    expect(TOOL_META({ resourceUri: 'ui://a', visibility: ['model', 'app'] })).toBe(true);
    expect(TOOL_META({ resourceUri: 'ui://a', visibility: ['everyone'] })).toBe(false);
    expect(TOOL_META({ resourceUri: 'ui://a', csp: {} })).toBe(false);
    expect(RESOURCE_META({ csp: { connectDomains: ['https://a.example.com'] }, prefersBorder: true })).toBe(true);
    expect(RESOURCE_META({ csp: { scriptDomains: [] } })).toBe(false);
    expect(RESOURCE_META({ permissions: { camera: true } })).toBe(false);
  });
});

interface Expected {
  linkedTools: string[];
  appOnlyTools: string[];
  uiResources: string[];
}

interface Server {
  endpoint: string;
  close(): Promise<void>;
}

const SERVERS: [string, () => Promise<Server>, Expected][] = [
  [
    'the reference gateway',
    () => startGateway(),
    {
      linkedTools: ['notes.board', 'notes.board.add', 'notes.create'],
      appOnlyTools: ['notes.board.add'],
      uiResources: ['ui://notes/board'],
    },
  ],
  ['the showcase fixture', () => startFixtureApp({ providers: [ShowcaseApps, ShowcaseRuntimeApp] }), SHOWCASE],
];
const ERAS: NegotiationMode[] = ['legacy', PINNED];

async function listTools(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

async function listResources(client: Client): Promise<Resource[]> {
  const resources: Resource[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    resources.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor);
  return resources;
}

const sorted = (names: string[]) => [...names].sort();

describe.each(SERVERS)('MCP Apps on the wire: %s', (_name, start, expected) => {
  let server: Server;

  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server?.close());

  describe.each(ERAS)('era %p', (mode) => {
    const connect = (declares: boolean): Promise<SdkV2Connection> =>
      connectSdkV2('http', {
        mode,
        endpoint: server.endpoint,
        elicitation: false,
        name: `apps-wire ${modeName(mode)}`,
        clientOptions: { capabilities: declares ? DECLARES_APPS : {} },
      });

    it('to a host that declared MCP Apps: tools and UI resources that match the extension’s schema', async () => {
      const host = await connect(true);
      try {
        expect(host.client.getServerCapabilities()?.extensions?.[EXTENSION_ID]).toEqual({});

        const resources = await listResources(host.client);
        const uiResources = resources.filter((resource) => resource.uri.startsWith('ui://'));
        expect(sorted(uiResources.map((resource) => resource.uri))).toEqual(sorted(expected.uiResources));
        for (const resource of uiResources) {
          expect(resource.mimeType).toBe(RESOURCE_MIME_TYPE);
          const listed = resource._meta?.ui;
          if (listed !== undefined) expectValid(RESOURCE_META, listed, `_meta.ui of ${resource.uri} (resources/list)`);
          const { contents } = await host.client.readResource({ uri: resource.uri });
          expect(contents).toHaveLength(1);
          const [content] = contents as { uri: string; mimeType?: string; text?: string; _meta?: { ui?: unknown } }[];
          expect(content).toMatchObject({ uri: resource.uri, mimeType: RESOURCE_MIME_TYPE });
          expect(content.text).toMatch(/^<!DOCTYPE html>/i);
          expect(content._meta?.ui).toEqual(listed);
          if (content._meta?.ui !== undefined) {
            expectValid(RESOURCE_META, content._meta.ui, `_meta.ui of ${resource.uri} (resources/read)`);
          }
        }

        const tools = await listTools(host.client);
        const linked = tools.filter((tool) => tool._meta?.ui !== undefined);
        expect(sorted(linked.map((tool) => tool.name))).toEqual(sorted(expected.linkedTools));
        for (const tool of linked) {
          const ui = tool._meta!.ui as { resourceUri?: string };
          expectValid(TOOL_META, ui, `_meta.ui of tool ${tool.name}`);
          // The extension's own host helper finds the same UI resource, which exists.
          expect(getToolUiResourceUri(tool)).toBe(ui.resourceUri);
          expect(tool._meta![RESOURCE_URI_META_KEY]).toBe(ui.resourceUri);
          if (ui.resourceUri !== undefined) expect(expected.uiResources).toContain(ui.resourceUri);
        }
        const appOnly = tools.filter((tool) => isToolVisibilityAppOnly(tool)).map((tool) => tool.name);
        expect(sorted(appOnly)).toEqual(sorted(expected.appOnlyTools));
        for (const name of expected.appOnlyTools) {
          const result = await host.client.callTool({
            name,
            arguments: name === 'notes.board.add' ? { title: 'app', body: '' } : {},
          });
          expect(result.isError).toBeFalsy();
        }
      } finally {
        await host.close();
      }
    });

    it('to a client that did not declare it: plain tools, no app-only tool, no UI resource listed', async () => {
      const client = await connect(false);
      try {
        expect(client.client.getServerCapabilities()?.extensions?.[EXTENSION_ID]).toEqual({});
        const tools = await listTools(client.client);
        const names = tools.map((tool) => tool.name);
        for (const name of expected.appOnlyTools) expect(names).not.toContain(name);
        for (const name of expected.linkedTools.filter((tool) => !expected.appOnlyTools.includes(tool))) {
          expect(names).toContain(name);
        }
        for (const tool of tools) {
          expect(tool._meta?.ui).toBeUndefined();
          expect(tool._meta?.[RESOURCE_URI_META_KEY]).toBeUndefined();
        }
        const resources = await listResources(client.client);
        expect(resources.filter((resource) => resource.uri.startsWith('ui://'))).toEqual([]);
        for (const name of expected.appOnlyTools) {
          await expect(client.client.callTool({ name, arguments: {} })).rejects.toMatchObject({
            code: -32602,
            data: { detail: `Unknown tool '${name}'` },
          });
        }
      } finally {
        await client.close();
      }
    });
  });
});
