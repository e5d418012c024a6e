/**
 * MCP Apps in a real browser: headless Chromium runs a web host built with the extension's own
 * AppBridge and the official SDK client (test/apps/browser), which connects to the server, calls
 * a tool linked to a UI resource, renders the resource in a sandboxed iframe behind a sandbox
 * proxy on another origin, and relays the view's calls. The view is the gateway's notes board (a
 * real app, bundled from src/notes/board/ui): it lists the notes, adds one through its app-only
 * tool, and shows new notes when the server says the list changed (it never re-lists after its
 * own add, so a new note on the board is the change notification's doing). Once declared with
 * @McpApp (the reference gateway), once registered at runtime (a fixture). Screenshots go to
 * test/artifacts/apps/.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import type { Browser, Frame } from 'playwright-core';
import { NOTES_BOARD_HTML } from '../../src/notes/board/notes-board.app.js';
import { NotesPublisher } from '../../src/notes/notes.publisher.js';
import { RUNTIME_BOARD_PROVIDERS, RuntimeNotesBoard } from '../fixtures/apps.fixtures.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { launchBrowser, openAppsHost, type AppsHostPage } from '../support/apps-host.js';
import { bundleGatewayApps, startGateway, type RunningGateway } from '../support/gateway-app.js';
import { until } from '../support/until.js';

const BOARD = 'ui://notes/board';
const MIME = 'text/html;profile=mcp-app';
/** Bounds each wait for the board to show something (a loaded 2-core machine renders slowly); the tests that wait several times get 90 s in all. */
const WAIT_MS = 15_000;

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** Another client, as the model's side of another conversation: it changes notes on its own. */
async function otherClient(endpoint: string): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: 'other-conversation', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint));
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

/** The view's own frame: the sandbox proxy's inner iframe (`about:srcdoc`). */
function viewFrame(host: AppsHostPage): Frame {
  const frame = host.page.frames().find((candidate) => candidate.url() === 'about:srcdoc');
  if (!frame)
    throw new Error(
      `No view frame among ${host.page
        .frames()
        .map((candidate) => candidate.url())
        .join(', ')}`,
    );
  return frame;
}

describe('the gateway’s notes board (@McpApp) in Chromium', () => {
  let gateway: RunningGateway;
  let host: AppsHostPage;

  beforeAll(async () => {
    gateway = await startGateway();
    host = await openAppsHost(browser, gateway.origin);
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    await gateway?.close();
  });

  it('lists the notes, adds one through its app-only tool, and shows the notes as they change', async () => {
    const other = await otherClient(gateway.endpoint);
    try {
      await other.client.callTool({ name: 'notes.create', arguments: { title: 'Before the board', body: 'seed' } });
      const connected = await host.connect();
      expect(connected.serverCapabilities).toMatchObject({ extensions: { 'io.modelcontextprotocol/ui': {} } });
      expect(connected.tools).toEqual(expect.arrayContaining(['notes.board', 'notes.board.add']));
      expect(connected.modelTools).toContain('notes.board');
      expect(connected.modelTools).not.toContain('notes.board.add');

      const shown = await host.show('notes.board');
      expect(shown).toEqual({ uri: BOARD, mimeType: MIME, ui: { prefersBorder: true } });
      const notes = host.view.locator('#notes li');
      await notes.filter({ hasText: 'Before the board' }).waitFor({ timeout: WAIT_MS });

      // Through the board's form: the app-only tool, then the server's list_changed.
      await host.view.getByLabel('Title').fill('Added on the board');
      await host.view.getByLabel('Body').fill('typed by the user');
      await host.view.getByRole('button', { name: 'Add note' }).click();
      await notes.filter({ hasText: 'Added on the board' }).waitFor({ timeout: WAIT_MS });
      await host.view.getByText('Added “Added on the board”.').waitFor({ timeout: WAIT_MS });

      // A change made elsewhere reaches the open board the same way.
      await other.client.callTool({ name: 'notes.create', arguments: { title: 'From elsewhere', body: 'x' } });
      await notes.filter({ hasText: 'From elsewhere' }).waitFor({ timeout: WAIT_MS });
      expect(await notes.allTextContents()).toEqual(['Before the board', 'Added on the board', 'From elsewhere']);
      await host.screenshot('notes-board');

      const record = await host.record();
      expect(record.appToolCalls).toContain('notes.board.add');
      expect(record.listChangedForwarded).toBeGreaterThan(0);
      expect(record.refusedAppToolCalls).toEqual([]);
      expect(record.errors).toEqual([]);
      expect(host.pageErrors).toEqual([]);
      const board = await other.client.callTool({ name: 'notes.board', arguments: {} });
      expect((board.structuredContent as { notes: { title: string }[] }).notes.map((note) => note.title)).toContain(
        'Added on the board',
      );
    } finally {
      await other.close();
    }
  }, 90_000);

  it('renders the view under the resource’s CSP, in an opaque origin that cannot reach the server', async () => {
    const policy = await host.sandbox.locator('body').getAttribute('data-csp');
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'none'");
    const view = viewFrame(host);
    expect(await view.evaluate(() => (globalThis as unknown as { origin: string }).origin)).toBe('null');
    const attempt = await view.evaluate(async (endpoint) => {
      try {
        await fetch(endpoint, { method: 'POST', body: '{}' });
        return 'reached the server';
      } catch {
        return 'blocked';
      }
    }, gateway.endpoint);
    expect(attempt).toBe('blocked');
  });
});

describe('the notes board registered at runtime (McpResourceService) in Chromium', () => {
  let fixture: FixtureApp;
  let host: AppsHostPage;

  beforeAll(async () => {
    await bundleGatewayApps();
    fixture = await startFixtureApp({ providers: RUNTIME_BOARD_PROVIDERS });
    host = await openAppsHost(browser, fixture.origin);
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    await fixture?.close();
  });

  it('works like a declared one, and a subscribed host hears when the UI resource changes', async () => {
    const publisher = fixture.app.get(NotesPublisher);
    await publisher.create('Seeded on the server', '');
    await host.connect();
    const shown = await host.show('notes.board');
    expect(shown).toEqual({ uri: BOARD, mimeType: MIME, ui: { prefersBorder: false } });
    const notes = host.view.locator('#notes li');
    await notes.filter({ hasText: 'Seeded on the server' }).waitFor({ timeout: WAIT_MS });

    await host.view.getByLabel('Title').fill('Added on the runtime board');
    await host.view.getByRole('button', { name: 'Add note' }).click();
    await notes.filter({ hasText: 'Added on the runtime board' }).waitFor({ timeout: WAIT_MS });
    await publisher.create('Created on the server', '');
    await notes.filter({ hasText: 'Created on the server' }).waitFor({ timeout: WAIT_MS });
    await host.screenshot('runtime-notes-board');
    expect((await host.record()).appToolCalls).toContain('notes.board.add');

    // The app's HTML changes (a redeploy, say): registering it again tells the subscribed host.
    await host.subscribe(BOARD);
    const restyled = readFileSync(NOTES_BOARD_HTML, 'utf8').replace('<h1>Notes</h1>', '<h1>Notes, restyled</h1>');
    expect(restyled).toContain('Notes, restyled');
    fixture.app.get(RuntimeNotesBoard).publish(restyled);
    await until(async () => (await host.record()).updated.includes(BOARD), 'the host hears resources/updated', WAIT_MS);
    await host.show('notes.board');
    await host.view.getByRole('heading', { name: 'Notes, restyled' }).waitFor({ timeout: WAIT_MS });
    await notes.filter({ hasText: 'Created on the server' }).waitFor({ timeout: WAIT_MS });
    expect(host.pageErrors).toEqual([]);
  }, 90_000);
});
