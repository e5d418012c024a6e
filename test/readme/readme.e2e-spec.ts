/**
 * Every TypeScript block of the documentation (README.md and docs/) type-checks against the
 * library (see compile-snippets.ts), and the blocks that form a program run: each server against
 * the official SDK client, each client as its own Node.js process against a real server, which
 * must exit by itself. Every relative link of the pages leads somewhere, and every docs/ page the
 * code's comments name exists.
 */
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { McpModule, McpServerStats } from '@app/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Module, type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { startGateway } from '../support/gateway-app.js';
import { watchProcess } from '../support/watched-process.js';
import { compileSnippets, type Compilation } from './compile-snippets.js';
import { brokenLinks, relativeLinks } from './markdown-links.js';
import {
  documentationFiles,
  extractDocumentationSnippets,
  packageReadmes,
  ROOT,
  type Snippet,
} from './readme-snippets.js';
import { SNIPPET_CONTEXTS } from './snippet-contexts.js';

/** The text of a text resource content (a blob has none). */
const textOf = (content: object): string => ('text' in content ? String(content.text) : '');

/** A block that must not compile: proves that errors are found and placed on their file and line. */
const CANARY: Snippet = {
  source: 'README.md',
  line: 100_000,
  section: 'Canary',
  file: 'canary.ts',
  code: "import { McpModule } from '@nest-mcp/server';\nMcpModule.forRoot({ serverInfo: { name: 1 } });",
};

let compilation: Compilation;
const closing: (() => Promise<unknown>)[] = [];

beforeAll(() => {
  compilation = compileSnippets([...extractDocumentationSnippets(), CANARY], SNIPPET_CONTEXTS);
}, 120_000);

afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** The emitted module of the block named `name` (its first line, `// name`). */
function block(name: string): string {
  const found = compilation.snippets.find((snippet) => snippet.name === name);
  if (!found) throw new Error(`the documentation has no block starting with // ${name}`);
  return found.output;
}

/** A module of the documentation's, or a host module with `McpModule.forRoot` and its exported classes. */
@Module({})
class ReadmeHost {}
async function serverModule(file: string, moduleName?: string): Promise<DynamicModule | Type> {
  const exports = (await import(block(file))) as Record<string, unknown>;
  if (moduleName) return exports[moduleName] as Type;
  const providers = Object.values(exports).filter((value): value is Type => typeof value === 'function');
  return {
    module: ReadmeHost,
    imports: [McpModule.forRoot({ serverInfo: { name: 'readme', version: '0.0.0' } })],
    providers,
  };
}

async function serve(module: DynamicModule | Type): Promise<{ app: INestApplication; endpoint: string }> {
  const app = await NestFactory.create(module, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  closing.push(() => app.close());
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, endpoint: `http://127.0.0.1:${port}/mcp` };
}

async function connect(endpoint: string): Promise<Client> {
  const client = new Client({ name: 'readme-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  closing.push(() => client.close());
  return client;
}

/**
 * Runs a client block as its own process against `endpoint`: the one MCP URL it names is
 * replaced, nothing else. Resolves with its output once it has exited by itself.
 */
async function runClient(file: string, endpoint: string): Promise<string> {
  const source = readFileSync(block(file), 'utf8');
  const urls = source.match(/'http:\/\/[^']+\/mcp'/g) ?? [];
  const [url] = urls;
  if (urls.length !== 1 || url === undefined) throw new Error(`${file} should name one MCP URL, not ${urls.length}`);
  const runnable = block(file).replace(/\.js$/, '.run.js');
  writeFileSync(runnable, source.replace(url, JSON.stringify(endpoint)));
  const child = watchProcess(process.execPath, [runnable]);
  closing.push(() => child.stop());
  const exit = await Promise.race([
    child.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${file} did not exit; output:\n${child.lines.join('\n')}`)), 30_000).unref(),
    ),
  ]);
  expect({ exit, output: child.lines }).toMatchObject({ exit: { code: 0 } });
  return child.lines.join('\n');
}

/** Sessions the application holds now. */
const openSessions = (app: INestApplication): Promise<number> => app.get(McpServerStats).openSessions();

/** Every source file under the folders the code lives in (no node_modules, no build output). */
function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'results') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return codeFiles(path);
    return /\.(ts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('README, docs/ and the package READMEs', () => {
  it('every TypeScript block type-checks against the library (the canary alone fails, on its line)', () => {
    expect(compilation.errors).toEqual([expect.stringMatching(/^README\.md:100001: TS2322: /)]);
  });

  it('reads the pages of docs/ as well as the README', () => {
    const sources = new Set(compilation.snippets.map((snippet) => snippet.source));
    expect(documentationFiles()).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/tools.md']));
    expect([...sources]).toEqual(
      expect.arrayContaining(['README.md', 'docs/tools.md', 'docs/subscriptions.md', 'libs/mcp/README.md']),
    );
  });

  it('every relative link leads to an existing file and heading', () => {
    expect(brokenLinks(ROOT, documentationFiles())).toEqual([]);
  });

  it('the package READMEs have no relative link (npm shows them without the repository)', () => {
    const relativeOnes = packageReadmes().flatMap((source) =>
      relativeLinks(readFileSync(join(ROOT, source), 'utf8')).map(({ line, target }) => `${source}:${line}: ${target}`),
    );
    expect(packageReadmes()).toEqual(['libs/mcp-redis/README.md', 'libs/mcp/README.md']);
    expect(relativeOnes).toEqual([]);
  });

  it('every docs/ page that a comment of the code names exists', () => {
    const missing = ['libs', 'src', 'test', 'scripts', 'examples'].flatMap((folder) =>
      codeFiles(join(ROOT, folder)).flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/\bdocs\/[\w./-]*?\.md\b/g)]
          .map(([page]) => page)
          .filter((page) => !existsSync(join(ROOT, page)))
          .map((page) => `${relative(ROOT, file)}: ${page}`),
      ),
    );
    expect(missing).toEqual([]);
  });

  it('quick start: the client calls add on the reference gateway, prints the result, ends its session and exits', async () => {
    const gateway = await startGateway();
    closing.push(() => gateway.close());
    expect(await runClient('client.ts', gateway.endpoint)).toContain('structuredContent: { sum: 5 }');
    expect(await openSessions(gateway.app)).toBe(0);
  }, 60_000);

  it('README: AppModule with GreetingTools answers greet', async () => {
    const { endpoint } = await serve(await serverModule('app.module.ts', 'AppModule'));
    const client = await connect(endpoint);
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    expect(await client.callTool({ name: 'greet', arguments: {} })).toMatchObject({ isError: true });
  });

  // An undecorated DTO property with a default (`days = 3`) is an optional property with that
  // default: the Tools page's example works as written.
  it('Tools: WeatherTools answers get_forecast, the default days included', async () => {
    const { endpoint } = await serve(await serverModule('weather.tools.ts'));
    const client = await connect(endpoint);
    const result = await client.callTool({ name: 'get_forecast', arguments: { city: 'Paris' } });
    expect(result).toMatchObject({ structuredContent: { city: 'Paris', summary: 'Sunny for 3 days' } });
    const longer = await client.callTool({
      name: 'get_forecast',
      arguments: { city: 'Oslo', days: 5, units: 'metric' },
    });
    expect(longer).toMatchObject({ structuredContent: { city: 'Oslo', summary: 'Sunny for 5 days' } });
  });
  it('Resources: system://info is listed with its name and read as JSON', async () => {
    const client = await connect((await serve(await serverModule('system.resources.ts'))).endpoint);
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(
      expect.objectContaining({ uri: 'system://info', name: 'System information', mimeType: 'application/json' }),
    );
    const { contents } = await client.readResource({ uri: 'system://info' });
    expect(JSON.parse(textOf(contents[0]))).toEqual({ uptime: expect.any(Number) });
  });

  it('Runtime resources: a published note is listed and read; once removed, reading it is -32002', async () => {
    const { app, endpoint } = await serve(await serverModule('notes.service.ts'));
    const client = await connect(endpoint);
    const { NotesService } = (await import(block('notes.service.ts'))) as { NotesService: Type };
    const notes = app.get<{ publish(note: object): void; remove(id: string): Promise<void> }>(NotesService);
    notes.publish({ id: '7', title: 'Groceries', body: 'milk' });
    expect((await client.listResources()).resources).toContainEqual(
      expect.objectContaining({ uri: 'db://notes/7', name: 'Groceries' }),
    );
    const { contents } = await client.readResource({ uri: 'db://notes/7' });
    expect(JSON.parse(textOf(contents[0]))).toEqual({ id: '7', title: 'Groceries', body: 'milk' });
    await notes.remove('7');
    await expect(client.readResource({ uri: 'db://notes/7' })).rejects.toMatchObject({ code: -32002 });
  });

  it('Skills from a provider: the playbooks are served as skills at startup; a retired one is gone', async () => {
    const { app, endpoint } = await serve(await serverModule('playbook-skills.ts', 'AppModule'));
    const client = await connect(endpoint);
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(
      expect.objectContaining({ uri: 'skill://playbooks/refunds/SKILL.md', description: 'How to refund an order' }),
    );
    const { contents } = await client.readResource({ uri: 'skill://playbooks/refunds/references/escalation.md' });
    expect(textOf(contents[0])).toContain('Escalate to a lead');
    const { PlaybookSkills } = (await import(block('playbook-skills.ts'))) as { PlaybookSkills: Type };
    expect(await app.get<{ retire(slug: string): Promise<boolean> }>(PlaybookSkills).retire('refunds')).toBe(true);
    await expect(client.readResource({ uri: 'skill://playbooks/refunds/SKILL.md' })).rejects.toMatchObject({
      code: -32002,
    });
  });

  it('Subscriptions: the subscriber hears about the update its own tool call made, re-reads, ends its session and exits', async () => {
    const { app, endpoint } = await serve(await serverModule('note.tools.ts'));
    const output = await runClient('subscriber.ts', endpoint);
    expect(output).toContain("uri: 'notes://today'");
    expect(output).toContain("text: 'Second draft'");
    expect(await openSessions(app)).toBe(0);
  }, 60_000);

  it('Protocol eras: the modern client listens, creates a note, confirms notes.clear and exits', async () => {
    const gateway = await startGateway();
    closing.push(() => gateway.close());
    const output = await runClient('modern-client.ts', gateway.endpoint);
    expect(output).toMatch(/deleted\\?"?: ?1/);
    expect(output).toMatch(/confirmed\\?"?: ?true/);
  }, 60_000);

  it('Tasks: build_report is a task for a client that asks for one, and a plain call for any other', async () => {
    const client = await connect((await serve(await serverModule('report.tools.ts'))).endpoint);
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream(
      { name: 'build_report', arguments: { sections: 2 } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    let taskId = '';
    let text = '';
    for await (const message of stream) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') text = textOf(message.result.content[0]);
      if (message.type === 'error') throw message.error;
    }
    expect(text).toBe(`Report (task ${taskId}): section 1, section 2`);
    const inline = await client.callTool({ name: 'build_report', arguments: { sections: 1 } });
    expect(textOf((inline.content as Array<{ text: string }>)[0])).toBe('Report (inline): section 1');
  });

  it('Tasks: the SDK v1 client exports the notes of the reference gateway as a task', async () => {
    const gateway = await startGateway({ NOTES_EXPORT_STEP_MS: '0' });
    closing.push(() => gateway.close());
    const output = await runClient('tasks-client.ts', gateway.endpoint);
    expect(output).toMatch(/^task \S+$/m);
    expect(output).toMatch(/^status completed/m);
    expect(output).toContain("result { format: 'json', count: 0, notes: [] }");
  }, 60_000);

  it('Tasks: the ext-tasks client exports the notes of the reference gateway through the extension', async () => {
    const gateway = await startGateway({ NOTES_EXPORT_STEP_MS: '0' });
    closing.push(() => gateway.close());
    const output = await runClient('ext-tasks-client.ts', gateway.endpoint);
    expect(output).toMatch(/^completed /m);
    expect(output).toContain("format: 'json'");
  }, 60_000);

  it("Skills: the SDK v2 client lists the reference gateway's notes skill and reads its files, verified", async () => {
    const gateway = await startGateway();
    closing.push(() => gateway.close());
    const output = await runClient('skills-client.ts', gateway.endpoint);
    expect(output).toContain(
      'skill://notes/SKILL.md Find, summarize and export the notes kept by the MCP Resource Gateway',
    );
    expect(output).toContain("verified true # Working with the gateway's notes");
    expect(output).toContain('verified true # Searching notes');
  }, 60_000);

  it('Prompts: summarize renders one user message, with the default style and a chosen one', async () => {
    const client = await connect((await serve(await serverModule('summary.prompts.ts'))).endpoint);
    const brief = await client.getPrompt({ name: 'summarize', arguments: { text: 'Nest' } });
    expect(brief.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize (brief):\n\nNest' } }]);
    const detailed = await client.getPrompt({ name: 'summarize', arguments: { text: 'Nest', style: 'detailed' } });
    expect(detailed.messages[0].content).toEqual({ type: 'text', text: 'Summarize (detailed):\n\nNest' });
  });
});
