/**
 * A real browser for the MCP Apps e2e: headless Chromium (Debian's, driven by playwright-core)
 * with a fresh profile, and a web host of MCP Apps in it (test/apps/browser: the official SDK
 * client and AppBridge, a sandbox proxy on another origin), both bundled here with esbuild.
 *
 * The host page is served on the server's own origin (`http://127.0.0.1:<port>`, so its MCP
 * requests are same-origin) and the sandbox on `http://localhost:<port>` (another origin, as MCP
 * Apps requires); the browser's requests for both are answered by the test (`page.route`) and
 * never reach the server. Everything stays on the loopback interface.
 */
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import type {
  AppsHostApi,
  AppsHostConfig,
  AppsHostConnected,
  AppsHostRecord,
  AppsHostShown,
} from '../apps/browser/host-api.js';
import { PROJECT_ROOT } from './stdio-client.js';

/** The Chromium binary (Debian's package); `.ci/run` installs it when missing. */
export const CHROMIUM_PATH = process.env.MCP_E2E_CHROMIUM ?? '/usr/bin/chromium';

/** Where screenshots are kept (gitignored). */
export const ARTIFACTS_DIR = join(PROJECT_ROOT, 'test', 'artifacts', 'apps');

const BROWSER_DIR = join(PROJECT_ROOT, 'test', 'apps', 'browser');
const ROUTE_PREFIX = '/__apps-e2e/';

// No sandbox (the test runs as root in a container), no GPU, and nothing that reaches the
// network by itself (background networking, component updates, sync, QUIC).
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches headless Chromium. Playwright gives it a fresh profile (`--user-data-dir` in a new
 * temporary folder, removed on close); each host page gets a browser context of its own.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

let bundles: Promise<{ host: string; sandbox: string }> | undefined;

/** The host and sandbox pages' scripts, bundled once per test file. */
function browserBundles(): Promise<{ host: string; sandbox: string }> {
  const bundle = async (entry: string): Promise<string> => {
    const result = await build({
      entryPoints: [join(BROWSER_DIR, entry)],
      absWorkingDir: PROJECT_ROOT,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    return result.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  };
  bundles ??= Promise.all([bundle('host.ts'), bundle('sandbox.ts')]).then(([host, sandbox]) => ({ host, sandbox }));
  return bundles;
}

const page = (title: string, script: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body><script type="module">${script}</script></body></html>`;

/** A host page in the browser, driving MCP Apps views of one server. */
export interface AppsHostPage {
  page: Page;
  /** Closes the page's browser context, and with it every connection it held to the server. */
  close(): Promise<void>;
  /** The view: the sandbox proxy's inner iframe. */
  view: FrameLocator;
  /** The sandbox proxy's frame. */
  sandbox: FrameLocator;
  connect(): Promise<AppsHostConnected>;
  show(tool: string, args?: Record<string, unknown>): Promise<AppsHostShown>;
  subscribe(uri: string): Promise<void>;
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
  record(): Promise<AppsHostRecord>;
  /** Uncaught errors in any frame of the page, and console errors other than CSP reports. */
  readonly pageErrors: string[];
  /** Saves a screenshot of the page under test/artifacts/apps/. */
  screenshot(name: string): Promise<string>;
}

/** Opens the test host for the server at `origin` (`http://127.0.0.1:<port>`, MCP at `/mcp`). */
export async function openAppsHost(browser: Browser, origin: string, endpointPath = '/mcp'): Promise<AppsHostPage> {
  const { host, sandbox } = await browserBundles();
  const hostOrigin = new URL(origin);
  const sandboxOrigin = new URL(origin);
  sandboxOrigin.hostname = 'localhost';
  const config: AppsHostConfig = {
    endpoint: new URL(endpointPath, hostOrigin).href,
    sandboxUrl: `${sandboxOrigin.origin}${ROUTE_PREFIX}sandbox.html?host=${encodeURIComponent(hostOrigin.origin)}`,
  };
  const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
  const tab = await context.newPage();
  const pageErrors: string[] = [];
  tab.on('pageerror', (error) => pageErrors.push(error.message));
  await tab.route(
    (url) => url.pathname.startsWith(ROUTE_PREFIX),
    (route) => {
      const url = new URL(route.request().url());
      const body =
        url.pathname === `${ROUTE_PREFIX}host.html`
          ? page('MCP Apps host', host)
          : url.pathname === `${ROUTE_PREFIX}sandbox.html`
            ? page('MCP Apps sandbox', sandbox)
            : undefined;
      return body === undefined
        ? route.fulfill({ status: 404, body: 'not found' })
        : route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body });
    },
  );
  await tab.goto(`${hostOrigin.origin}${ROUTE_PREFIX}host.html`);
  await tab.waitForFunction(() => 'appsHost' in globalThis);

  // Functions given to evaluate() run in the page: each names the host itself (no closures).
  type InPage = { appsHost: AppsHostApi };
  const sandboxFrame = tab.frameLocator('#sandbox');
  return {
    page: tab,
    close: () => context.close(),
    sandbox: sandboxFrame,
    view: sandboxFrame.frameLocator('iframe'),
    connect: () => tab.evaluate((cfg) => (globalThis as unknown as InPage).appsHost.connect(cfg), config),
    show: (tool, args) =>
      tab.evaluate(([name, input]) => (globalThis as unknown as InPage).appsHost.show(name, input), [
        tool,
        args,
      ] as const),
    subscribe: (uri) => tab.evaluate((target) => (globalThis as unknown as InPage).appsHost.subscribe(target), uri),
    callTool: (name, args) =>
      tab.evaluate(([tool, input]) => (globalThis as unknown as InPage).appsHost.callTool(tool, input), [
        name,
        args,
      ] as const),
    record: () => tab.evaluate(() => structuredClone((globalThis as unknown as InPage).appsHost.record)),
    pageErrors,
    async screenshot(name) {
      mkdirSync(ARTIFACTS_DIR, { recursive: true });
      const path = join(ARTIFACTS_DIR, `${name}.png`);
      await tab.screenshot({ path, fullPage: true });
      return path;
    },
  };
}
