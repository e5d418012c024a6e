import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpResource, McpTool } from '../../decorators/index.js';
import { appsDeclaredOn, McpApp } from './mcp-app.decorator.js';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpResourceService } from '../../resources/mcp-resource.service.js';
import { ResourceNotificationService } from '../../notifications/resource-notification.service.js';
import {
  compileMcpModule,
  httpContext,
  McpTestClient,
  statelessContext,
  type McpFixture,
} from '../../testing/mcp-testing-module.js';
import { rejectionOf, thrownBy } from '../../testing/thrown.js';
import type { McpDispatchContext } from '../../protocol/mcp-dispatch-context.js';

const BOARD = 'ui://test/board';
const HTML = '<!DOCTYPE html><html><body>board</body></html>';
const UI_META = { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true };
const MIME = 'text/html;profile=mcp-app';
const APPS = { 'io.modelcontextprotocol/ui': { mimeTypes: [MIME] } };

@McpApp({ uri: BOARD, name: 'Board', description: 'The board', html: HTML, ui: UI_META })
@Injectable()
class BoardApp {}

@Injectable()
class BoardTools {
  @McpTool({ name: 'board.show', description: 'Shows the board', ui: { resourceUri: BOARD } })
  show() {
    return 'shown';
  }

  @McpTool({
    name: 'board.add',
    description: 'Adds an item from the board',
    ui: { resourceUri: BOARD, visibility: ['app'] },
    _meta: { 'example.com/trace': 'kept' },
  })
  add() {
    return 'added';
  }

  @McpTool({ name: 'plain', description: 'No UI' })
  plain() {
    return 'plain';
  }
}

const initialize = async (client: McpTestClient, capabilities: Record<string, unknown>) => {
  const ctx = httpContext();
  const result = await client.result(
    'initialize',
    { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'host', version: '1' } },
    ctx,
  );
  return { ctx, result };
};

/** `_meta` of a modern-era (2026-07-28) request declaring these client capabilities. */
const modern = (capabilities: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

async function initFailure(fixture: McpFixture): Promise<McpDefinitionError> {
  let module: TestingModule | undefined;
  try {
    module = await compileMcpModule(fixture);
    const error = await rejectionOf(module.init());
    expect(error).toBeInstanceOf(McpDefinitionError);
    return error as McpDefinitionError;
  } finally {
    await module?.close().catch(() => undefined);
  }
}

const toolNames = (result: Record<string, unknown>) => (result.tools as { name: string }[]).map((tool) => tool.name);
const toolNamed = (result: Record<string, unknown>, name: string) =>
  (result.tools as { name: string; _meta?: Record<string, unknown> }[]).find((tool) => tool.name === name);
const resourceUris = (result: Record<string, unknown>) =>
  (result.resources as { uri: string }[]).map((resource) => resource.uri);

describe('@McpApp', () => {
  it('stacks on a class, in source order, and a subclass does not declare its parent’s again', () => {
    @McpApp({ uri: 'ui://a', html: HTML })
    @McpApp({ uri: 'ui://b', html: HTML })
    class TwoApps {}
    class Child extends TwoApps {}
    expect(appsDeclaredOn(TwoApps).map((app) => app.uri)).toEqual(['ui://a', 'ui://b']);
    expect(appsDeclaredOn(Child)).toEqual([]);
    expect(appsDeclaredOn({})).toEqual([]);
  });
});

describe('MCP Apps', () => {
  describe('what a host sees, in both protocol eras', () => {
    let client: McpTestClient;

    beforeAll(async () => {
      client = await McpTestClient.create({ providers: [BoardApp, BoardTools] });
    });
    afterAll(() => client.close());

    it('advertises the extension in initialize, to every client', async () => {
      for (const capabilities of [{}, { extensions: APPS }]) {
        const { result } = await initialize(client, capabilities);
        expect(result.capabilities).toMatchObject({ extensions: { 'io.modelcontextprotocol/ui': {} } });
      }
    });

    it('advertises it in server/discover', async () => {
      const result = await client.result('server/discover', { _meta: modern({}) });
      expect(result.capabilities).toMatchObject({ extensions: { 'io.modelcontextprotocol/ui': {} } });
    });

    const declaring: [string, () => Promise<[McpDispatchContext | undefined, Record<string, unknown>]>][] = [
      ['a legacy session that declared it', async () => [(await initialize(client, { extensions: APPS })).ctx, {}]],
      ['a modern request that declares it', async () => [undefined, { _meta: modern({ extensions: APPS }) }]],
    ];
    const notDeclaring: [string, () => Promise<[McpDispatchContext | undefined, Record<string, unknown>]>][] = [
      ['a legacy session that did not declare it', async () => [(await initialize(client, {})).ctx, {}]],
      [
        'a legacy session that declared it without its MIME type',
        async () => [(await initialize(client, { extensions: { 'io.modelcontextprotocol/ui': {} } })).ctx, {}],
      ],
      ['a modern request that does not declare it', async () => [undefined, { _meta: modern({}) }]],
      ['a stateless legacy request (no capabilities known)', async () => [statelessContext('2025-11-25'), {}]],
    ];

    it.each(declaring)('%s: every tool with its _meta.ui, and the UI resources listed', async (_what, setup) => {
      const [ctx, params] = await setup();
      const tools = await client.result('tools/list', params, ctx);
      expect(toolNames(tools).sort()).toEqual(['board.add', 'board.show', 'plain']);
      expect(toolNamed(tools, 'board.show')?._meta).toEqual({ ui: { resourceUri: BOARD }, 'ui/resourceUri': BOARD });
      expect(toolNamed(tools, 'board.add')?._meta).toEqual({
        'example.com/trace': 'kept',
        ui: { resourceUri: BOARD, visibility: ['app'] },
        'ui/resourceUri': BOARD,
      });
      expect(toolNamed(tools, 'plain')?._meta).toBeUndefined();
      const called = await client.result('tools/call', { ...params, name: 'board.add' }, ctx);
      expect(called.content).toEqual([{ type: 'text', text: 'added' }]);
      const resources = await client.result('resources/list', params, ctx);
      expect(resources.resources).toEqual([
        { uri: BOARD, name: 'Board', description: 'The board', mimeType: MIME, _meta: { ui: UI_META } },
      ]);
    });

    it.each(notDeclaring)('%s: plain tools, no app-only tool, no UI resource listed', async (_what, setup) => {
      const [ctx, params] = await setup();
      const tools = await client.result('tools/list', params, ctx);
      expect(toolNames(tools).sort()).toEqual(['board.show', 'plain']);
      expect(toolNamed(tools, 'board.show')?._meta).toBeUndefined();
      const error = await client.error('tools/call', { ...params, name: 'board.add' }, ctx);
      expect(error).toMatchObject({ code: -32602, data: { detail: "Unknown tool 'board.add'", name: 'board.add' } });
      expect(resourceUris(await client.result('resources/list', params, ctx))).toEqual([]);
      // Reading it still works: only the listing is left to hosts that render apps.
      const read = await client.result('resources/read', { ...params, uri: BOARD }, ctx);
      expect((read.contents as { text: string }[])[0].text).toBe(HTML);
    });

    it('reads the UI resource with its MIME type and _meta.ui on the content item', async () => {
      const read = await client.result('resources/read', { uri: BOARD, _meta: modern({ extensions: APPS }) });
      expect(read.contents).toEqual([{ uri: BOARD, mimeType: MIME, text: HTML, _meta: { ui: UI_META } }]);
    });
  });

  describe('the ways to declare a UI resource', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'mcp-apps-'));
      writeFileSync(join(dir, 'board.html'), HTML);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the html file once, at startup', async () => {
      @McpApp({ uri: 'ui://file', html: { file: join(dir, 'board.html') } })
      @Injectable()
      class FileApp {}
      const client = await McpTestClient.create({ providers: [FileApp] });
      try {
        writeFileSync(join(dir, 'board.html'), '<!DOCTYPE html><p>changed on disk</p>');
        const read = await client.result('resources/read', { uri: 'ui://file' });
        expect(read.contents).toEqual([{ uri: 'ui://file', mimeType: MIME, text: HTML }]);
      } finally {
        writeFileSync(join(dir, 'board.html'), HTML);
        await client.close();
      }
    });

    it('calls an html function for every read, with the provider as this and the request context', async () => {
      const seen: string[] = [];
      @McpApp({
        uri: 'ui://fn',
        html(this: FnApp, ctx: McpRequestContext) {
          seen.push(`${this.label}:${ctx.method}`);
          return `<!DOCTYPE html><p>${seen.length}</p>`;
        },
      })
      @Injectable()
      class FnApp {
        readonly label = 'fn-app';
      }
      const client = await McpTestClient.create({ providers: [FnApp] });
      try {
        await client.result('resources/read', { uri: 'ui://fn' });
        const second = await client.result('resources/read', { uri: 'ui://fn' });
        expect((second.contents as { text: string }[])[0].text).toBe('<!DOCTYPE html><p>2</p>');
        expect(seen).toEqual(['fn-app:resources/read', 'fn-app:resources/read']);
      } finally {
        await client.close();
      }
    });

    it('makes an @McpResource on a ui:// URI a UI resource (its method returns the HTML)', async () => {
      @Injectable()
      class MethodApp {
        @McpResource({ uri: 'ui://method', name: 'Method app', ui: { prefersBorder: false } })
        html() {
          return HTML;
        }
      }
      const client = await McpTestClient.create({ providers: [MethodApp] });
      try {
        const listed = await client.result('resources/list', { _meta: modern({ extensions: APPS }) });
        expect(listed.resources).toEqual([
          { uri: 'ui://method', name: 'Method app', mimeType: MIME, _meta: { ui: { prefersBorder: false } } },
        ]);
        const read = await client.result('resources/read', { uri: 'ui://method' });
        expect(read.contents).toEqual([
          { uri: 'ui://method', mimeType: MIME, text: HTML, _meta: { ui: { prefersBorder: false } } },
        ]);
      } finally {
        await client.close();
      }
    });

    it('keeps a content item’s own _meta.ui (it wins over the listing’s, as MCP Apps says)', async () => {
      const own = { ui: { prefersBorder: true }, 'example.com/x': 1 };
      @Injectable()
      class OwnMetaApp {
        @McpResource({ uri: 'ui://own', ui: { prefersBorder: false } })
        html() {
          return { contents: [{ uri: 'ui://own', mimeType: MIME, text: HTML, _meta: own }] };
        }
      }
      const client = await McpTestClient.create({ providers: [OwnMetaApp] });
      try {
        const read = await client.result('resources/read', { uri: 'ui://own' });
        expect(read.contents).toEqual([{ uri: 'ui://own', mimeType: MIME, text: HTML, _meta: own }]);
      } finally {
        await client.close();
      }
    });

    it('takes the wire’s own _meta.ui (and the flat ui/resourceUri) in place of the ui option', async () => {
      @Injectable()
      class WireStyle {
        @McpResource({ uri: 'ui://wire', _meta: { ui: { prefersBorder: true }, 'example.com/x': 1 } })
        html() {
          return HTML;
        }

        @McpTool({
          name: 'wire.app',
          description: 'app only',
          _meta: { ui: { resourceUri: 'ui://wire', visibility: ['app'] } },
        })
        app() {}

        @McpTool({ name: 'wire.flat', description: 'the flat key', _meta: { 'ui/resourceUri': 'ui://wire' } })
        flat() {}
      }
      const client = await McpTestClient.create({ providers: [WireStyle] });
      try {
        const declaring = { _meta: modern({ extensions: APPS }) };
        const tools = await client.result('tools/list', declaring);
        expect(toolNamed(tools, 'wire.app')?._meta).toEqual({
          ui: { resourceUri: 'ui://wire', visibility: ['app'] },
          'ui/resourceUri': 'ui://wire',
        });
        expect(toolNamed(tools, 'wire.flat')?._meta).toEqual({
          ui: { resourceUri: 'ui://wire' },
          'ui/resourceUri': 'ui://wire',
        });
        expect(toolNames(await client.result('tools/list', { _meta: modern({}) }))).toEqual(['wire.flat']);
        const resources = await client.result('resources/list', declaring);
        expect(resources.resources).toEqual([
          {
            uri: 'ui://wire',
            name: 'ui://wire',
            mimeType: MIME,
            _meta: { ui: { prefersBorder: true }, 'example.com/x': 1 },
          },
        ]);
      } finally {
        await client.close();
      }
    });

    it('registers one at runtime like a declared one, and tells subscribers when it is replaced', async () => {
      const client = await McpTestClient.create({ providers: [BoardTools, RuntimeBoard] });
      try {
        const listed = await client.result('resources/list', { _meta: modern({ extensions: APPS }) });
        expect(listed.resources).toEqual([
          { uri: BOARD, name: 'Runtime board', mimeType: MIME, _meta: { ui: { prefersBorder: true } } },
        ]);
        const read = await client.result('resources/read', { uri: BOARD });
        expect(read.contents).toEqual([
          { uri: BOARD, mimeType: MIME, text: HTML, _meta: { ui: { prefersBorder: true } } },
        ]);

        const notifications = client.module.get(ResourceNotificationService);
        const updated = jest.spyOn(notifications, 'notifyResourceUpdated');
        const resources = client.module.get(McpResourceService);
        resources.register(BOARD, () => '<!DOCTYPE html><p>v2</p>', { name: 'Runtime board' });
        expect(updated).toHaveBeenCalledWith(BOARD);
        const reread = await client.result('resources/read', { uri: BOARD });
        expect(reread.contents).toEqual([{ uri: BOARD, mimeType: MIME, text: '<!DOCTYPE html><p>v2</p>' }]);
        expect(() => resources.register('db://board', () => HTML, { ui: {} })).toThrow(McpDefinitionError);
        expect(
          thrownBy(() => resources.register(BOARD, () => HTML, { ui: { csp: { connectDomains: ['*'] } } })),
        ).toEqual(
          expect.objectContaining({ message: expect.stringContaining(`McpResourceService.register('${BOARD}')`) }),
        );
      } finally {
        await client.close();
      }
    });
  });

  describe('startup validation: a bad declaration fails init() naming where it is', () => {
    @Injectable()
    class DanglingTools {
      @McpTool({ name: 'dangling', description: 'links to nothing', ui: { resourceUri: 'ui://missing' } })
      dangling() {}
    }

    @McpApp({ uri: 'https://example.com/board', html: HTML })
    @Injectable()
    class OutsideApp {}

    @Injectable()
    class OutsideResource {
      @McpResource({ uri: 'db://board', ui: { prefersBorder: true } })
      board() {}
    }

    @McpApp({ uri: BOARD, html: HTML, ui: { csp: { connectDomains: ["'unsafe-eval'"] } } })
    @Injectable()
    class BadCspApp {}

    @Injectable()
    class BadCspResource {
      @McpResource({ uri: BOARD, ui: { csp: { resourceDomains: ['https://cdn.example.com; script-src *'] } } })
      board() {}
    }

    @McpApp({ uri: BOARD, html: { file: '/nonexistent/board.html' } })
    @Injectable()
    class MissingFileApp {}

    @McpApp({ uri: BOARD, html: 'board' })
    @Injectable()
    class NotHtmlApp {}

    @Injectable()
    class WrongMimeResource {
      @McpResource({ uri: BOARD, mimeType: 'text/html' })
      board() {}
    }

    @Injectable()
    class UiTemplate {
      @McpResource({ uriTemplate: 'ui://boards/{id}' })
      board() {}
    }

    @Injectable()
    class TwiceTools {
      @McpTool({
        name: 'twice',
        description: 'ui twice',
        ui: { resourceUri: BOARD },
        _meta: { ui: { visibility: ['app'] } },
      })
      twice() {}
    }

    @Injectable()
    class BadVisibilityTools {
      @McpTool({ name: 'nobody', description: 'visible to nobody', ui: { resourceUri: BOARD, visibility: [] } })
      nobody() {}
    }

    it.each<[string, Type[], string[]]>([
      [
        'a tool linked to a UI resource that does not exist',
        [DanglingTools],
        ['DanglingTools.dangling', 'ui://missing'],
      ],
      [
        'an @McpApp outside ui://',
        [OutsideApp],
        ["OutsideApp (@McpApp 'https://example.com/board')", 'outside the ui://'],
      ],
      ['ui metadata on a resource outside ui://', [OutsideResource], ['OutsideResource.board', 'outside the ui://']],
      ['an invalid CSP on an @McpApp', [BadCspApp], ['BadCspApp (@McpApp', "'unsafe-eval'"]],
      ['an invalid CSP on an @McpResource', [BadCspResource], ['BadCspResource.board', 'csp.resourceDomains']],
      ['an html file that cannot be read', [MissingFileApp], ['MissingFileApp (@McpApp', '/nonexistent/board.html']],
      ['inline html that is no HTML document', [NotHtmlApp], ['NotHtmlApp (@McpApp', '<!DOCTYPE html>']],
      ['a UI resource with another MIME type', [WrongMimeResource], ['WrongMimeResource.board', "'text/html'"]],
      ['a resource template in ui://', [UiTemplate], ['UiTemplate.board', 'exact URI']],
      ['tool ui given twice', [BoardApp, TwiceTools], ['TwiceTools.twice', 'twice']],
      ['a tool visible to nobody', [BoardApp, BadVisibilityTools], ['BadVisibilityTools.nobody', 'ui.visibility']],
    ])('%s', async (_what, providers, parts) => {
      const error = await initFailure({ providers });
      for (const part of parts) expect(error.message).toContain(part);
    });

    it('lets a tool link to a UI resource registered at runtime in an onModuleInit', async () => {
      const client = await McpTestClient.create({ providers: [BoardTools, RuntimeBoard] });
      await client.close();
    });
  });
});

/** Registers the board at runtime, as an application would in its own onModuleInit. */
@Injectable()
class RuntimeBoard implements OnModuleInit {
  constructor(private readonly resources: McpResourceService) {}

  onModuleInit() {
    this.resources.register(BOARD, () => HTML, { name: 'Runtime board', ui: { prefersBorder: true } });
  }
}
