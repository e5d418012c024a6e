/**
 * McpModule configuration: forRoot / forRootAsync (useFactory, useClass, useExisting), the HTTP
 * path extra, and the options that change behaviour on the wire or fail bootstrap.
 */
import { McpModule, McpServerStats } from '@app/mcp';
import { initializeRequest, openSession, rawPost } from '../support/raw-http.js';
import {
  bootstrapFixtureApp,
  FIXTURE_SERVER_INFO,
  startFixtureApp,
  waitFor,
  type FixtureApp,
} from '../fixtures/fixture-app.js';
import { BasicTools } from '../fixtures/basic.tools.js';
import { BadNameTools } from '../fixtures/bad-name.tools.js';
import {
  FIXTURE_CONFIG,
  FixtureConfigModule,
  McpOptionsFactoryFixture,
  ConfiguredOptionsFactory,
  OptionsFactoryModule,
  type FixtureConfig,
} from '../fixtures/config.module.js';

describe('McpModule options', () => {
  let fixture: FixtureApp | undefined;

  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  describe('forRootAsync', () => {
    it('uses the serverInfo of a useFactory that injects from an imported module', async () => {
      fixture = await startFixtureApp({
        providers: [BasicTools],
        mcpModule: McpModule.forRootAsync({
          imports: [FixtureConfigModule],
          inject: [FIXTURE_CONFIG],
          useFactory: (config: FixtureConfig) => ({
            serverInfo: { name: config.serverName, version: config.serverVersion },
            instructions: config.instructions,
          }),
        }),
      });

      const { client } = await fixture.connect();

      expect(client.getServerVersion()).toEqual({ name: 'from-factory', version: '2.0.0' });
      expect(client.getInstructions()).toBe('Configured asynchronously');
    });

    it("calls create() of a useClass options factory (ConfigurableModuleBuilder's default)", async () => {
      fixture = await startFixtureApp({
        providers: [BasicTools],
        mcpModule: McpModule.forRootAsync({ useClass: McpOptionsFactoryFixture }),
      });

      const { client } = await fixture.connect();

      expect(client.getServerVersion()).toEqual({ name: 'from-class', version: '3.0.0' });
      expect(client.getInstructions()).toBe('Built by a class');
    });

    it('calls create() of a useExisting options factory from an imported module', async () => {
      fixture = await startFixtureApp({
        providers: [BasicTools],
        mcpModule: McpModule.forRootAsync({ imports: [OptionsFactoryModule], useExisting: ConfiguredOptionsFactory }),
      });

      const { client } = await fixture.connect();

      expect(client.getServerVersion()).toEqual({ name: 'from-factory-existing', version: '2.0.0' });
    });

    it('takes the http path extra next to the async options', async () => {
      fixture = await startFixtureApp({
        providers: [BasicTools],
        mcpModule: McpModule.forRootAsync({
          useFactory: () => ({ serverInfo: { name: 'async-path', version: '1' } }),
          http: { path: '/async-mcp' },
        }),
        path: '/async-mcp',
      });

      const served = await rawPost(fixture.endpoint, initializeRequest());
      const defaultPath = await rawPost(`${fixture.origin}/mcp`, initializeRequest());

      expect(served.status).toBe(200);
      expect(served.json.result.serverInfo).toEqual({ name: 'async-path', version: '1' });
      expect(defaultPath.status).toBe(404);
    });
  });

  it('serves a custom http path, and not /mcp', async () => {
    fixture = await startFixtureApp({ providers: [BasicTools], mcp: { http: { path: '/custom' } } });

    const custom = await rawPost(`${fixture.origin}/custom`, initializeRequest());
    const defaultPath = await rawPost(`${fixture.origin}/mcp`, initializeRequest());

    expect(custom.status).toBe(200);
    expect(custom.json.result.serverInfo).toEqual(FIXTURE_SERVER_INFO);
    expect(custom.headers.get('mcp-session-id')).toBeTruthy();
    expect(defaultPath.status).toBe(404);

    // The whole session lives on the custom path.
    const { client } = await fixture.connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('paginates tools/list with pageSize: 1', async () => {
    fixture = await startFixtureApp({ providers: [BasicTools], mcp: { pageSize: 1 } });
    const { client } = await fixture.connect();

    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      expect(page.tools).toHaveLength(1);
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 10);

    expect(pages).toBe(3);
    expect(names.sort()).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('answers 413 to a body above limits.maxBodyBytes: 1024, and serves smaller ones', async () => {
    fixture = await startFixtureApp({ providers: [BasicTools], mcp: { limits: { maxBodyBytes: 1024 } } });

    const small = await rawPost(fixture.endpoint, initializeRequest());
    const big = { ...initializeRequest(2), params: { ...initializeRequest(2).params, padding: 'x'.repeat(2048) } };
    const large = await rawPost(fixture.endpoint, big);

    expect(small.status).toBe(200);
    expect(large.status).toBe(413);
    expect(large.json?.error?.message).toBe('Request body too large');
  });

  it('allows the transport.allowedOrigins origin and refuses another one with 403', async () => {
    fixture = await startFixtureApp({
      providers: [BasicTools],
      mcp: { transport: { allowedOrigins: ['https://app.example.com'] } },
    });

    const allowed = await rawPost(fixture.endpoint, initializeRequest(), { origin: 'https://app.example.com' });
    const refused = await rawPost(fixture.endpoint, initializeRequest(), { origin: 'https://evil.example.com' });
    const localhost = await rawPost(fixture.endpoint, initializeRequest(), { origin: 'http://localhost:3000' });

    expect(allowed.status).toBe(200);
    expect(refused.status).toBe(403);
    // The list replaces the localhost default.
    expect(localhost.status).toBe(403);
  });

  describe('transport.validateProtocolVersionHeader', () => {
    const callWithUnknownVersion = async (endpoint: string) => {
      const { headers } = await openSession(endpoint);
      return rawPost(
        endpoint,
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'alpha', arguments: {} } },
        { ...headers, 'mcp-protocol-version': '1999-01-01' },
      );
    };

    it('refuses an unknown MCP-Protocol-Version header by default (400)', async () => {
      fixture = await startFixtureApp({ providers: [BasicTools] });

      const response = await callWithUnknownVersion(fixture.endpoint);

      expect(response.status).toBe(400);
    });

    it('serves a request with an unknown header version when set to false', async () => {
      fixture = await startFixtureApp({
        providers: [BasicTools],
        mcp: { transport: { validateProtocolVersionHeader: false } },
      });

      const response = await callWithUnknownVersion(fixture.endpoint);

      expect(response.status).toBe(200);
      expect(response.json.result.content).toEqual([{ type: 'text', text: 'a' }]);
    });
  });

  describe('a name that is no option', () => {
    it('fails bootstrap naming it, whether a typo or a setting that lives in a group', async () => {
      const bootstrap = bootstrapFixtureApp({
        providers: [BasicTools],
        mcp: { maxBodyBytes: 1024, limits: { maxBodyBytes: 2048 } } as object,
      });

      await expect(bootstrap).rejects.toThrow(
        /McpModule has no option 'maxBodyBytes': its options are serverInfo, .*limits/,
      );
    });
  });

  describe('bootstrap failures', () => {
    it("fails bootstrap on protocolVersion: '1999-01-01', naming the value and the supported ones", async () => {
      const bootstrap = bootstrapFixtureApp({
        providers: [BasicTools],
        mcp: { protocolVersion: '1999-01-01' as never },
      });

      await expect(bootstrap).rejects.toThrow(/'1999-01-01'.*not a supported protocol version.*2025-11-25/);
    });

    it('fails bootstrap on pageSize: 0, naming the option', async () => {
      await expect(bootstrapFixtureApp({ providers: [BasicTools], mcp: { pageSize: 0 } })).rejects.toThrow(
        "McpModule option 'pageSize' must be a positive number, got 0",
      );
    });

    it('fails app.init() on an invalid tool name, naming Class.method', async () => {
      const bootstrap = bootstrapFixtureApp({ providers: [BadNameTools] });

      await expect(bootstrap).rejects.toThrow(/Invalid MCP tool name 'bad name!' on BadNameTools\.broken/);
    });
  });

  it('expires a session idle past sessions.idleTimeoutMs: its id then answers 404', async () => {
    fixture = await startFixtureApp({
      providers: [BasicTools],
      mcp: { sessions: { idleTimeoutMs: 200, cleanupIntervalMs: 50 } },
    });
    const stats = fixture.app.get(McpServerStats);
    const { headers } = await openSession(fixture.endpoint);
    const ping = () => rawPost(fixture!.endpoint, { jsonrpc: '2.0', id: 9, method: 'ping' }, headers);

    expect((await ping()).status).toBe(200);
    expect(await stats.openSessions()).toBe(1);

    // count() does not touch the session, so only the sweep can bring it to 0.
    await waitFor(async () => (await stats.openSessions()) === 0, 'the idle session to be swept', {
      timeoutMs: 3_000,
      intervalMs: 25,
    });

    const after = await ping();
    expect(after.status).toBe(404);
    expect(after.json.error.code).toBe(-32001);
  });
});
