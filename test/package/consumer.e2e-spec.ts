/**
 * The library as a user gets it: every package under libs/ packed with `npm pack`, the tarball's
 * contents checked, then `@nest-mcp/server` installed into fresh CommonJS and ESM Nest applications
 * (made by Nest's own schematic, outside this repository), each kind once on Express and once on
 * Fastify, with only the documented peers, built, started, and driven with the official SDK client: a DTO-typed tool, a resource,
 * a subscription and the update that the injected ResourceNotificationService sends. The
 * application imports both of the package's runtime entries (`@nest-mcp/server` and
 * `@nest-mcp/server/backend`) and sets grouped options.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { watchProcess } from '../support/watched-process.js';
import { addMcpServer, build, install, scaffold, type HttpPlatform, type ModuleKind } from './consumer-app.js';

/** The text of a text resource content (a blob has none). */
const textOf = (content: object): string => ('text' in content ? String(content.text) : '');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The applications: both module kinds on Express, and both on Fastify alone. */
const VARIANTS: Array<{ name: string; kind: ModuleKind; platform: HttpPlatform }> = [
  { name: 'cjs', kind: 'cjs', platform: 'express' },
  { name: 'esm', kind: 'esm', platform: 'express' },
  { name: 'cjs-fastify', kind: 'cjs', platform: 'fastify' },
  { name: 'esm-fastify', kind: 'esm', platform: 'fastify' },
];

/** The consumer's code: one DTO-typed tool, one resource, the injected notifier. */
const APP_FILES: Record<string, string> = {
  'src/counter.tools.ts': `
import { Injectable } from '@nestjs/common';
import { IsInt, IsString, Min } from 'class-validator';
import { McpArgs, McpResource, McpTool, ResourceNotificationService } from '@nest-mcp/server';

export class SetCounterInput {
  @IsString() label!: string;
  @IsInt() @Min(0) value!: number;
}

@Injectable()
export class CounterTools {
  private counter = { label: 'start', value: 0 };

  constructor(private readonly notifications: ResourceNotificationService) {}

  @McpResource({ uri: 'counter://main', name: 'Counter', mimeType: 'application/json' })
  read() {
    return this.counter;
  }

  @McpTool({ name: 'set_counter', description: 'Sets the counter', input: SetCounterInput })
  async set(@McpArgs() { label, value }: SetCounterInput) {
    this.counter = { label, value };
    await this.notifications.notifyResourceUpdated('counter://main');
    return this.counter;
  }

  /** Its inferred type goes into the app's own .d.ts (\`declaration: true\`): the entry must name it. */
  announce() {
    return this.notifications.notifyResourceUpdated('counter://main');
  }
}
`,
  'src/app.module.ts': `
import { Module } from '@nestjs/common';
import { McpModule } from '@nest-mcp/server';
import { InMemoryMcpBackend } from '@nest-mcp/server/backend';
import { AppController } from './app.controller.js';
import { AppService } from './app.service.js';
import { CounterTools } from './counter.tools.js';

@Module({
  imports: [
    McpModule.forRoot({
      serverInfo: { name: 'consumer', version: '1.0.0' },
      sessions: { idleTimeoutMs: 600_000 },
      limits: { maxBodyBytes: 1024 * 1024 },
      backend: new InMemoryMcpBackend(),
    }),
  ],
  controllers: [AppController],
  providers: [AppService, CounterTools],
})
export class AppModule {}
`,
};

let work: string;
let tarballs: string[];
let packed: string;
const apps = new Map<string, { dir: string; installLog: string }>();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'nest-mcp-consumer-'));
  const output = execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack-libs.mjs'), join(work, 'tarballs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  tarballs = output.trim().split('\n');
  const server = tarballs.find((path) => /nest-mcp-server-[^/]+\.tgz$/.test(path));
  if (!server) throw new Error(`no @nest-mcp/server tarball among ${tarballs.join(', ')}`);
  packed = join(work, 'packed');
  mkdirSync(packed);
  execFileSync('tar', ['xzf', server, '-C', packed]);
  packed = join(packed, 'package');
  // All the applications at once: npm spends most of its time waiting on the cache and the registry.
  await Promise.all(
    VARIANTS.map(async ({ name, kind, platform }) => {
      const dir = await scaffold(work, `${name}-app`, kind);
      addMcpServer(dir, server, APP_FILES, platform);
      const installLog = await install(dir);
      await build(dir);
      apps.set(name, { dir, installLog });
    }),
  );
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );

describe('the @nest-mcp/server tarball', () => {
  it('is one of the packed libraries, with its README, LICENSE, CHANGELOG, code, backend and testing entries and sources, and no tests', () => {
    expect(tarballs.length).toBe(
      readdirSync(join(ROOT, 'libs')).filter((lib) => existsSync(join(ROOT, 'libs', lib, 'package.json'))).length,
    );
    const files = filesUnder(packed).map((file) => relative(packed, file));
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/backend/index.js',
        'dist/backend/index.d.ts',
        'dist/testing/index.js',
        'dist/testing/index.d.ts',
        'src/index.ts',
      ]),
    );
    expect(files.filter((file) => /\.spec\.(ts|js)$/.test(file))).toEqual([]);
    // The package's own README, not the repository's.
    expect(readFileSync(join(packed, 'README.md'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'libs', 'mcp', 'README.md'), 'utf8'),
    );
  });

  it('has source maps and declaration maps whose sources it ships', () => {
    const maps = filesUnder(join(packed, 'dist')).filter((file) => file.endsWith('.map'));
    expect(maps.some((map) => map.endsWith('.js.map'))).toBe(true);
    expect(maps.some((map) => map.endsWith('.d.ts.map'))).toBe(true);
    const missing = maps.flatMap((map) => {
      const { sources } = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] };
      return sources.map((source) => resolve(dirname(map), source)).filter((source) => !existsSync(source));
    });
    expect(missing.map((source) => relative(packed, source))).toEqual([]);
  });

  it('declares every package its code imports, the optional ones as optional peers', () => {
    const manifest = JSON.parse(readFileSync(join(packed, 'package.json'), 'utf8'));
    const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }));
    const imported = new Set<string>();
    for (const file of filesUnder(join(packed, 'dist')).filter((path) => path.endsWith('.js'))) {
      const code = readFileSync(file, 'utf8');
      for (const [, specifier] of code.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\)\(\s*)['"]([^'"]+)['"]/g,
      )) {
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        imported.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
      }
    }
    expect([...imported].filter((name) => !declared.has(name))).toEqual([]);
    // @nestjs/testing: only the ./testing entry (the backend contract suite) imports it. The two
    // HTTP platforms are declared and never imported: the app has the one it runs on.
    const platforms = ['@nestjs/platform-express', '@nestjs/platform-fastify'];
    expect(new Set([...imported, ...platforms])).toEqual(declared);
    expect([...imported].filter((name) => platforms.includes(name))).toEqual([]);
    expect(manifest.peerDependenciesMeta).toEqual({
      '@nestjs/platform-express': { optional: true },
      '@nestjs/platform-fastify': { optional: true },
      '@nestjs/testing': { optional: true },
      '@nestjs/websockets': { optional: true },
      zod: { optional: true },
    });
  });
});

describe.each(VARIANTS)('a fresh $name Nest application with @nest-mcp/server', ({ name, kind, platform }) => {
  const app = () => apps.get(name)!;

  it(`runs on ${platform} alone: the other HTTP platform is not installed`, () => {
    const modules = join(app().dir, 'node_modules', '@nestjs');
    expect(existsSync(join(modules, `platform-${platform}`))).toBe(true);
    expect(existsSync(join(modules, platform === 'express' ? 'platform-fastify' : 'platform-express'))).toBe(false);
  });

  it('installed the tarball with the documented peers only: no @nestjs/websockets, no zod', () => {
    const modules = join(app().dir, 'node_modules');
    expect(JSON.parse(readFileSync(join(modules, '@nest-mcp', 'server', 'package.json'), 'utf8')).name).toBe(
      '@nest-mcp/server',
    );
    for (const peer of ['class-validator', 'class-transformer', '@nestjs/core'])
      expect(existsSync(join(modules, peer))).toBe(true);
    expect(existsSync(join(modules, '@nestjs', 'websockets'))).toBe(false);
    expect(existsSync(join(modules, 'zod'))).toBe(false);
    // One Nest in the tree, the application's: the package brings no copy of its own.
    expect(existsSync(join(modules, '@nest-mcp', 'server', 'node_modules', '@nestjs'))).toBe(false);
    expect(app().installLog).not.toContain("package: '@nest-mcp/server@");
  });

  it(`builds to ${kind === 'cjs' ? 'CommonJS (require() of the ES module)' : 'ES modules'}`, () => {
    const compiled = readFileSync(join(app().dir, 'dist', 'app.module.js'), 'utf8');
    if (kind === 'cjs') {
      expect(compiled).toContain('require("@nest-mcp/server")');
      expect(compiled).toContain('require("@nest-mcp/server/backend")');
    } else {
      expect(compiled).toMatch(/import \{ McpModule \} from '@nest-mcp\/server';/);
      expect(compiled).toMatch(/import \{ InMemoryMcpBackend \} from '@nest-mcp\/server\/backend';/);
    }
  });

  it('starts and serves the DTO tool, the resource and its update to the official SDK client', async () => {
    const server = watchProcess(process.execPath, ['dist/main.js'], {
      cwd: app().dir,
      env: { ...process.env, PORT: '0' },
    });
    const client = new Client({ name: `consumer-${name}`, version: '1.0.0' });
    try {
      const { match } = await server.waitForLine(/^Listening on http:\/\/\S+:(\d+)$/);
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${match[1]}/mcp`)));

      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'set_counter')?.inputSchema).toMatchObject({
        type: 'object',
        properties: { label: { type: 'string' }, value: { type: 'integer', minimum: 0 } },
        required: expect.arrayContaining(['label', 'value']),
      });
      const refused = await client.callTool({ name: 'set_counter', arguments: { label: 'x', value: -1 } });
      expect(refused.isError).toBe(true);

      const updated = new Promise<string>((resolve) =>
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => resolve(params.uri)),
      );
      // The library's default wire profile is the MCP schema's: the SDK's own subscribe call works.
      await client.subscribeResource({ uri: 'counter://main' });
      const result = await client.callTool({ name: 'set_counter', arguments: { label: 'ten', value: 10 } });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ label: 'ten', value: 10 }) }]);
      expect(await updated).toBe('counter://main');
      const { contents } = await client.readResource({ uri: 'counter://main' });
      expect(JSON.parse(textOf(contents[0]))).toEqual({ label: 'ten', value: 10 });
    } finally {
      await client.close();
      await server.stop();
    }
    expect(server.lines.filter((line) => /\bERROR\b/.test(line))).toEqual([]);
  }, 60_000);
});
