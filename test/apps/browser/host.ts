// A web host of MCP Apps for the browser e2e, built the way the extension describes one: the
// official SDK client (declaring the extension) talks to the server; the official AppBridge
// talks to the view, through a sandbox proxy on another origin (sandbox.ts). It exposes
// `window.appsHost` (host-api.ts) for the test to drive and inspect.
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import {
  AppBridge,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  isToolVisibilityModelOnly,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import type { AppsHostApi, AppsHostConfig, AppsHostConnected, AppsHostRecord, AppsHostShown } from './host-api.js';

const HOST_INFO = { name: 'apps-e2e-host', version: '1.0.0' };
const EXTENSION_ID = 'io.modelcontextprotocol/ui';

const record: AppsHostRecord = {
  appToolCalls: [],
  refusedAppToolCalls: [],
  listChangedForwarded: 0,
  updated: [],
  errors: [],
};

let client: Client | undefined;
let config: AppsHostConfig | undefined;
let tools: Tool[] = [];
let shown: { bridge: AppBridge; frame: HTMLIFrameElement } | undefined;

const connected = (): Client => {
  if (!client) throw new Error('appsHost.connect() first');
  return client;
};

async function connect(next: AppsHostConfig): Promise<AppsHostConnected> {
  config = next;
  client = new Client(HOST_INFO, {
    capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    record.updated.push(notification.params.uri);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(next.endpoint)));
  tools = (await client.listTools()).tools;
  return {
    serverCapabilities: client.getServerCapabilities() ?? {},
    // MCP Apps: a host never shows the model a tool whose visibility lacks "model".
    modelTools: tools.filter((tool) => !isToolVisibilityAppOnly(tool)).map((tool) => tool.name),
    tools: tools.map((tool) => tool.name),
  };
}

/** A fresh sandbox frame; the previous view, if any, is torn down first. */
async function freshFrame(): Promise<HTMLIFrameElement> {
  if (shown) {
    await shown.bridge.teardownResource({ reason: 'replaced' }).catch(() => undefined);
    await shown.bridge.close();
    shown.frame.remove();
    shown = undefined;
  }
  const frame = document.createElement('iframe');
  frame.id = 'sandbox';
  frame.src = config!.sandboxUrl;
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  frame.style.cssText = 'width: 760px; height: 240px; border: 1px solid #ccc; border-radius: 8px';
  document.body.append(frame);
  return frame;
}

async function show(name: string, args: Record<string, unknown> = {}): Promise<AppsHostShown> {
  const mcp = connected();
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`The server lists no tool '${name}'`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`Tool '${name}' has no UI resource`);

  // The model's call runs while the view loads, as in a real host.
  const result = mcp.callTool({ name, arguments: args });
  const read = await mcp.readResource({ uri });
  const content = read.contents.find((item) => item.uri === uri) as
    { text?: string; mimeType?: string; _meta?: { ui?: Record<string, unknown> } } | undefined;
  if (typeof content?.text !== 'string') throw new Error(`${uri} has no text content`);
  const listing = (await mcp.listResources()).resources.find((resource) => resource.uri === uri);
  // MCP Apps: the content item's _meta.ui first, the listing's as the fallback.
  const ui = content._meta?.ui ?? (listing?._meta?.ui as Record<string, unknown> | undefined);

  const frame = await freshFrame();
  const bridge = new AppBridge(
    mcp,
    HOST_INFO,
    { serverTools: {}, serverResources: { listChanged: true }, logging: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', availableDisplayModes: ['inline'] } },
  );
  // The container has no fixed size (no containerDimensions): the view sizes it (MCP Apps).
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.ceil(height) + 2}px`;
  };
  const sandboxReady = new Promise<void>((resolve) => (bridge.onsandboxready = () => resolve()));
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));

  // The bridge forwards the view's tool calls to the server; the host first checks that the
  // tool is visible to apps (MCP Apps: a model-only tool is refused to views).
  const forward = bridge.oncalltool!;
  bridge.oncalltool = async (params, extra) => {
    const target = tools.find((candidate) => candidate.name === params.name);
    if (!target || isToolVisibilityModelOnly(target)) {
      record.refusedAppToolCalls.push(params.name);
      throw new Error(`Tool '${params.name}' is not available to apps`);
    }
    record.appToolCalls.push(params.name);
    return forward(params, extra);
  };
  const sendListChanged = bridge.sendResourceListChanged.bind(bridge);
  bridge.sendResourceListChanged = (params) => {
    record.listChangedForwarded++;
    return sendListChanged(params);
  };

  await sandboxReady;
  await bridge.sendSandboxResourceReady({
    html: content.text,
    csp: ui?.csp as Record<string, string[]> | undefined,
    permissions: ui?.permissions as Record<string, Record<string, never>> | undefined,
  });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(await result);
  shown = { bridge, frame };
  return { uri, ui, mimeType: content.mimeType };
}

const api: AppsHostApi = {
  connect,
  show,
  async subscribe(uri) {
    await connected().subscribeResource({ uri });
  },
  async callTool(name, args = {}) {
    return connected().callTool({ name, arguments: args });
  },
  record,
};

window.addEventListener('unhandledrejection', (event) => record.errors.push(String(event.reason)));
(window as unknown as { appsHost: AppsHostApi }).appsHost = api;
