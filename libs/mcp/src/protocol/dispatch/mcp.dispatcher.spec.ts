import 'reflect-metadata';
import { jest } from '@jest/globals';
import {
  BadRequestException,
  Injectable,
  InternalServerErrorException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import { IsString } from 'class-validator';
import { McpPrompt, McpResource, McpTool } from '../../decorators/index.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import type { McpProtocolVersion } from '../../mcp.constants.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import {
  asError,
  asSuccess,
  httpContext,
  McpTestClient,
  notification,
  parseAnswer,
  request,
  statelessContext,
} from '../../testing/mcp-testing-module.js';
import type { JsonRpcResponse } from '../../model/json-rpc.js';
import type { InboundFrame } from '../inbound/inbound.js';

const GREET_INPUT = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 } },
  required: ['name'],
  additionalProperties: false,
};
const SUM_INPUT = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};
const SUM_OUTPUT = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
const SECRET_COLUMN = 'secret_column_ssn';

class LabelDto {
  @IsString() label!: string;
}

/** Counts how often each tool body really ran. */
const executions = new Map<string, number>();
const ran = (name: string) => executions.set(name, (executions.get(name) ?? 0) + 1);

@Injectable()
class FixtureTools {
  @McpTool({ name: 'record', description: 'Counts its calls' })
  record() {
    ran('record');
    return 'recorded';
  }

  @McpTool({ name: 'greet', description: 'Greets someone', input: GREET_INPUT })
  greet(args: { name: string }) {
    ran('greet');
    return `Hello, ${args.name}!`;
  }

  @McpTool({ name: 'fail', description: 'Throws a plain Error' })
  fail(): never {
    throw new Error('boom');
  }

  @McpTool({ name: 'crash', description: 'Throws a TypeError' })
  crash(): never {
    throw new TypeError(`Cannot read properties of undefined (reading '${SECRET_COLUMN}')`);
  }

  @McpTool({ name: 'stats', description: 'Returns an object' })
  stats() {
    return { count: 2, tags: ['a', 'b'] };
  }

  @McpTool({ name: 'sum', description: 'Adds', input: SUM_INPUT, output: SUM_OUTPUT })
  sum(args: { a: number; b: number }) {
    return { sum: args.a + args.b };
  }

  @McpTool({ name: 'full', description: 'Returns a whole result' })
  full() {
    return {
      content: [
        { type: 'text', text: 'as is' },
        { type: 'image', data: 'AA==', mimeType: 'image/png' },
      ],
      isError: false,
      _meta: { 'example.com/trace': 'abc' },
    };
  }

  @McpTool({ name: 'anything', description: 'Accepts any object', input: { type: 'object' } })
  anything(args: Record<string, unknown>) {
    ran('anything');
    return { keys: Object.keys(args) };
  }

  @McpTool({ name: 'label', description: 'DTO input', input: LabelDto })
  label(args: LabelDto) {
    return { label: args.label, isDto: args instanceof LabelDto };
  }

  @McpTool({ name: 'pipe-reject', description: 'Throws what a ValidationPipe throws' })
  pipeReject(): never {
    throw new BadRequestException(['limit must not be greater than 50']);
  }

  @McpTool({ name: 'missing-note', description: 'Throws a NotFoundException' })
  missingNote(): never {
    throw new NotFoundException('Note 7 does not exist');
  }

  @McpTool({ name: 'upstream-down', description: 'Throws an InternalServerErrorException' })
  upstreamDown(): never {
    throw new InternalServerErrorException(`cannot reach ${SECRET_COLUMN}`);
  }
}

@Injectable()
class FixtureResources {
  @McpResource({ uri: 'notes://all', name: 'notes', mimeType: 'application/json' })
  notes(): never {
    throw new McpInvalidParamsException('No notes exist yet');
  }

  @McpResource({ uri: 'system://info' })
  info() {
    return { ok: true };
  }
}

@Injectable()
class FixturePrompts {
  @McpPrompt({
    name: 'summarize',
    description: 'Summarizes a topic',
    arguments: [{ name: 'topic', required: true }, { name: 'tone' }],
  })
  summarize(args: { topic: string; tone?: string }) {
    return `Summarize ${args.topic}${args.tone ? ` in a ${args.tone} tone` : ''}`;
  }
}

@Injectable()
class OnlyTools {
  @McpTool({ name: 'only', description: 'The one tool' })
  only() {
    return 'only';
  }
}

@Injectable()
class FiveTools {
  @McpTool({ name: 'delta', description: 'd' }) d() {}
  @McpTool({ name: 'alpha', description: 'a' }) a() {}
  @McpTool({ name: 'echo', description: 'e' }) e() {}
  @McpTool({ name: 'charlie', description: 'c' }) c() {}
  @McpTool({ name: 'bravo', description: 'b' }) b() {}
}

const INSTRUCTIONS = 'Use the notes tools to manage notes.';

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const MODERN_META = { [PROTOCOL_VERSION_META]: '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

describe('McpDispatcher', () => {
  let client: McpTestClient;
  let errorLog: jest.SpiedFunction<Logger['error']>;

  beforeAll(async () => {
    client = await McpTestClient.create({
      options: {
        serverInfo: { name: 't', version: '1', title: 'Test server', websiteUrl: undefined },
        instructions: INSTRUCTIONS,
      },
      providers: [FixtureTools, FixtureResources, FixturePrompts],
    });
  });

  afterAll(() => client.close());

  beforeEach(() => {
    executions.clear();
    errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  describe('initialize', () => {
    it.each<McpProtocolVersion>(['2025-11-25', '2025-06-18', '2025-03-26'])(
      'answers the supported requested version %s',
      async (version) => {
        const result = await client.result('initialize', { protocolVersion: version, capabilities: {} }, httpContext());

        expect(result.protocolVersion).toBe(version);
      },
    );

    it.each(['2024-11-05', '2099-01-01', 'garbage'])(
      'answers 2025-11-25 to the unsupported version %s',
      async (version) => {
        const result = await client.result('initialize', { protocolVersion: version }, httpContext());

        expect(result.protocolVersion).toBe('2025-11-25');
      },
    );

    it('reports capabilities for every feature present, serverInfo without undefined fields, and instructions', async () => {
      const result = await client.result('initialize', { protocolVersion: '2025-11-25' }, httpContext());

      expect(Object.keys(result.capabilities as object).sort()).toEqual(['logging', 'prompts', 'resources', 'tools']);
      expect(result.serverInfo).toStrictEqual({ name: 't', version: '1', title: 'Test server' });
      expect(result.instructions).toBe(INSTRUCTIONS);
    });

    it('creates a session when sessions are enabled and sets ctx.session', async () => {
      const ctx = httpContext();

      const result = await client.result(
        'initialize',
        { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: { name: 'inspector', version: '9' } },
        ctx,
      );

      expect(result.protocolVersion).toBe('2025-06-18');
      expect(ctx.session).toMatchObject({
        protocolVersion: '2025-06-18',
        transport: 'streamable-http',
        initialized: false,
        clientInfo: { name: 'inspector', version: '9' },
        clientCapabilities: { roots: {} },
      });
      const stored = await client.module.get(McpSessionManager).resolve(ctx.session!.id);
      expect(stored?.id).toBe(ctx.session!.id);
    });

    it('creates no session when sessions are disabled', async () => {
      const ctx = statelessContext();

      await client.result('initialize', { protocolVersion: '2025-11-25' }, ctx);

      expect(ctx.session).toBeUndefined();
    });

    it('refuses a second initialize on a session with -32600', async () => {
      const ctx = await client.initialize('2025-11-25');
      const session = ctx.session;

      const error = await client.error('initialize', { protocolVersion: '2025-11-25' }, ctx);

      expect(error.code).toBe(-32600);
      expect(ctx.session).toBe(session);
    });

    it.each([
      ['missing', {}],
      ['a number', { protocolVersion: 20251125 }],
    ])('answers -32602 naming protocolVersion when it is %s, creating no session', async (_label, params) => {
      const ctx = httpContext();

      const error = await client.error('initialize', params, ctx);

      expect(error).toMatchObject({ code: -32602, data: { detail: expect.stringContaining('protocolVersion') } });
      expect(ctx.session).toBeUndefined();
    });

    it('answers with the configured version whatever the client asks', async () => {
      const pinned = await McpTestClient.create({ options: { protocolVersion: '2025-06-18' }, providers: [OnlyTools] });
      try {
        for (const requested of ['2025-11-25', '2025-03-26', 'garbage']) {
          const ctx = httpContext();
          const result = await pinned.result('initialize', { protocolVersion: requested }, ctx);
          expect(result.protocolVersion).toBe('2025-06-18');
          expect(ctx.session?.protocolVersion).toBe('2025-06-18');
        }
      } finally {
        await pinned.close();
      }
    });
  });

  describe('capabilities of smaller servers', () => {
    it('declares only tools (and logging, always offered), and no instructions, for a server that has only tools', async () => {
      const toolsOnly = await McpTestClient.create({ providers: [OnlyTools] });
      try {
        const result = await toolsOnly.result('initialize', { protocolVersion: '2025-11-25' }, httpContext());

        expect(Object.keys(result.capabilities as object).sort()).toEqual(['logging', 'tools']);
        expect('instructions' in result).toBe(false);
        expect(result.serverInfo).toStrictEqual({ name: 't', version: '1' });
      } finally {
        await toolsOnly.close();
      }
    });

    it('answers -32601 for prompts/* and resources/* when none exist', async () => {
      const toolsOnly = await McpTestClient.create({ providers: [OnlyTools] });
      try {
        const ctx = await toolsOnly.initialize();
        for (const [method, params] of [
          ['prompts/list', {}],
          ['prompts/get', { name: 'x' }],
          ['resources/list', {}],
          ['resources/read', { uri: 'db://x' }],
          ['resources/subscribe', { uri: 'db://x' }],
        ] as const) {
          expect(await toolsOnly.error(method, params, ctx)).toMatchObject({ code: -32601 });
        }
        expect(await toolsOnly.result('tools/list', {}, ctx)).toMatchObject({ tools: [{ name: 'only' }] });
      } finally {
        await toolsOnly.close();
      }
    });

    it('declares only logging for a server with nothing registered', async () => {
      const empty = await McpTestClient.create();
      try {
        const result = await empty.result('initialize', { protocolVersion: '2025-11-25' }, httpContext());

        expect(result.capabilities).toStrictEqual({ logging: {} });
        expect(await empty.error('tools/call', { name: 'x' }, statelessContext())).toMatchObject({ code: -32602 });
      } finally {
        await empty.close();
      }
    });
  });

  describe('lifecycle gating', () => {
    it('answers ping with {} before initialize, on a session and without sessions', async () => {
      expect(await client.result('ping', undefined, httpContext())).toStrictEqual({});
      expect(await client.result('ping', {}, statelessContext())).toStrictEqual({});
      expect(await client.result('ping', undefined, await client.initialize())).toStrictEqual({});
    });

    it.each([
      ['tools/list', {}],
      ['tools/call', { name: 'record' }],
      ['resources/read', { uri: 'system://info' }],
      ['prompts/list', {}],
    ])(
      'answers %s before initialize with -32600 "Server not initialized" (and runs nothing)',
      async (method, params) => {
        const error = await client.error(method, params, httpContext());

        expect(error).toMatchObject({ code: -32600, message: 'Server not initialized' });
        expect(executions.get('record')).toBeUndefined();
      },
    );

    it('serves requests without initialize when sessions are disabled', async () => {
      const result = await client.result('tools/call', { name: 'record' }, statelessContext('2025-11-25'));

      expect(result).toStrictEqual({ content: [{ type: 'text', text: 'recorded' }] });
    });

    it('marks the session initialized on notifications/initialized, in the store too', async () => {
      const ctx = await client.initialize();
      const sessions = client.module.get(McpSessionManager);
      expect((await sessions.resolve(ctx.session!.id))?.initialized).toBe(false);

      const answer = await client.dispatch(notification('notifications/initialized'), ctx);

      expect(answer).toBeUndefined();
      expect(ctx.session!.initialized).toBe(true);
      expect((await sessions.resolve(ctx.session!.id))?.initialized).toBe(true);
    });
  });

  describe('method routing', () => {
    it.each(['tools/unknown', 'toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf', '', 'TOOLS/LIST'])(
      'answers the unknown method %p with -32601',
      async (method) => {
        const response = asError(
          await client.dispatch(JSON.parse(JSON.stringify(request(method, {}, 'm'))), await client.initialize()),
        );

        expect(response.id).toBe('m');
        expect(response.error).toMatchObject({ code: -32601, message: 'Method not found' });
      },
    );

    it('echoes the request id with its type', async () => {
      const ctx = await client.initialize();

      expect(asSuccess(await client.dispatch(request('ping', undefined, '7'), ctx)).id).toBe('7');
      expect(asSuccess(await client.dispatch(request('ping', undefined, 7), ctx)).id).toBe(7);
    });

    it('answers a framing error with -32600, echoing a readable id', async () => {
      const response = asError(await client.dispatch({ jsonrpc: '1.0', id: 4, method: 'ping' }, statelessContext()));

      expect(response).toMatchObject({ id: 4, error: { code: -32600 } });
    });

    it('answers nothing to a response from the client', async () => {
      expect(await client.dispatch({ jsonrpc: '2.0', id: 1, result: {} }, statelessContext())).toBeUndefined();
    });

    // JSON-RPC 2.0 section 5: an error response whose request id was unreadable carries id null
    // (MCP 2025-11-25 also lets it omit the id). classifyMessage calls it invalid, so the server
    // answers a response with a -32600 error (two such peers would ping-pong forever).
    it('answers nothing to an error response from the client whose id is null', async () => {
      const answer = await client.dispatch(
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
        statelessContext(),
      );

      expect(answer).toBeUndefined();
    });
  });

  describe('tools/list', () => {
    it('pages 5 tools 2 at a time, each name once, with nextCursor only while more follow', async () => {
      const paged = await McpTestClient.create({ options: { pageSize: 2 }, providers: [FiveTools] });
      try {
        const ctx = await paged.initialize();
        const names: string[] = [];
        const pages: Record<string, unknown>[] = [];
        let cursor: unknown;
        do {
          const page = await paged.result('tools/list', cursor === undefined ? {} : { cursor }, ctx);
          pages.push(page);
          names.push(...(page.tools as { name: string }[]).map((tool) => tool.name));
          cursor = page.nextCursor;
        } while (cursor !== undefined && pages.length < 10);

        expect(names).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
        expect(pages.map((page) => (page.tools as unknown[]).length)).toEqual([2, 2, 1]);
        expect(pages.map((page) => 'nextCursor' in page)).toEqual([true, true, false]);
        expect(pages.slice(0, 2).every((page) => typeof page.nextCursor === 'string')).toBe(true);
      } finally {
        await paged.close();
      }
    });

    it('answers -32602 to an invalid cursor', async () => {
      const ctx = await client.initialize();

      for (const cursor of ['x', '!!', 42, null]) {
        expect(await client.error('tools/list', { cursor }, ctx)).toMatchObject({ code: -32602 });
      }
    });

    it('describes each tool with its input schema and, when declared, its output schema', async () => {
      const { tools } = (await client.result('tools/list', {}, await client.initialize())) as {
        tools: Record<string, unknown>[];
      };
      const sum = tools.find((tool) => tool.name === 'sum');

      expect(sum).toMatchObject({ name: 'sum', description: 'Adds', inputSchema: SUM_INPUT, outputSchema: SUM_OUTPUT });
      expect(tools.find((tool) => tool.name === 'record')).not.toHaveProperty('outputSchema');
    });
  });

  describe('tools/call', () => {
    let ctx: Awaited<ReturnType<McpTestClient['initialize']>>;

    beforeAll(async () => {
      ctx = await client.initialize('2025-11-25');
    });

    it('answers an unknown tool with -32602, never -32601', async () => {
      const error = await client.error('tools/call', { name: 'nope', arguments: {} }, ctx);

      expect(error).toStrictEqual({
        code: -32602,
        message: 'Invalid params',
        data: { name: 'nope', detail: expect.stringContaining("'nope'") },
      });
    });

    it.each([
      ['missing', {}],
      ['a number', { name: 42 }],
      ['null', { name: null }],
    ])('answers -32602 naming the parameter when name is %s', async (_label, params) => {
      const error = await client.error('tools/call', params, ctx);

      expect(error).toMatchObject({ code: -32602, data: { detail: expect.stringContaining("'name'") } });
    });

    it.each([
      ['an array', ['Ada']],
      ['a string', 'Ada'],
      ['a number', 1],
      ['null', null],
    ])('answers -32602 when arguments is %s, without running the tool', async (_label, args) => {
      const error = await client.error('tools/call', { name: 'greet', arguments: args }, ctx);

      expect(error).toMatchObject({ code: -32602, data: { detail: expect.stringContaining('arguments') } });
      expect(executions.get('greet')).toBeUndefined();
    });

    it.each([
      ['a missing required argument', {}, 'name'],
      ['a wrong type', { name: 7 }, 'string'],
      ['an unknown argument', { name: 'Ada', shout: true }, 'shout'],
    ])('reports %s as an isError result on a 2025-11-25 session', async (_label, args, mentioned) => {
      const result = await client.result('tools/call', { name: 'greet', arguments: args }, ctx);

      expect(result).toStrictEqual({ content: [{ type: 'text', text: expect.any(String) }], isError: true });
      const text = (result.content as { text: string }[])[0].text;
      expect(text).toContain("'greet'");
      expect(text).toContain(mentioned);
      expect(executions.get('greet')).toBeUndefined();
    });

    it.each<McpProtocolVersion>(['2025-06-18', '2025-03-26'])(
      'reports invalid arguments as -32602 on a %s session',
      async (version) => {
        const older = await client.initialize(version);

        const error = await client.error('tools/call', { name: 'greet', arguments: {} }, older);

        expect(error).toMatchObject({ code: -32602, data: { detail: expect.stringContaining("'greet'") } });
        expect(executions.get('greet')).toBeUndefined();
      },
    );

    it('follows the header version on stateless requests', async () => {
      const modern = await client.result('tools/call', { name: 'greet' }, statelessContext('2025-11-25'));
      const legacy = await client.error('tools/call', { name: 'greet' }, statelessContext('2025-06-18'));

      expect(modern.isError).toBe(true);
      expect(legacy.code).toBe(-32602);
    });

    it('returns a string result as text, as is', async () => {
      const result = await client.result('tools/call', { name: 'greet', arguments: { name: 'Ada' } }, ctx);

      expect(result).toStrictEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
      expect(executions.get('greet')).toBe(1);
    });

    it('treats missing arguments as {}', async () => {
      expect(await client.result('tools/call', { name: 'record' }, ctx)).toStrictEqual({
        content: [{ type: 'text', text: 'recorded' }],
      });
    });

    it('returns an object result as its JSON text, without structuredContent', async () => {
      const result = await client.result('tools/call', { name: 'stats' }, ctx);

      expect(result).toStrictEqual({
        content: [{ type: 'text', text: JSON.stringify({ count: 2, tags: ['a', 'b'] }) }],
      });
    });

    it('adds structuredContent for a tool with an output schema', async () => {
      const result = await client.result('tools/call', { name: 'sum', arguments: { a: 2, b: 3 } }, ctx);

      expect(result).toStrictEqual({
        content: [{ type: 'text', text: JSON.stringify({ sum: 5 }) }],
        structuredContent: { sum: 5 },
      });
    });

    it('passes a full tool result through untouched', async () => {
      const result = await client.result('tools/call', { name: 'full' }, ctx);

      expect(result).toStrictEqual({
        content: [
          { type: 'text', text: 'as is' },
          { type: 'image', data: 'AA==', mimeType: 'image/png' },
        ],
        isError: false,
        _meta: { 'example.com/trace': 'abc' },
      });
    });

    it('turns a thrown Error into an isError result carrying its message', async () => {
      const result = await client.result('tools/call', { name: 'fail' }, ctx);

      expect(result).toStrictEqual({ content: [{ type: 'text', text: 'boom' }], isError: true });
    });

    it('turns a TypeError into an isError result with a correlation id, never its text', async () => {
      const response = asSuccess(await client.dispatch(request('tools/call', { name: 'crash' }), ctx));

      expect(response.result.isError).toBe(true);
      expect(JSON.stringify(response)).not.toContain(SECRET_COLUMN);
      expect(JSON.stringify(response)).not.toContain('TypeError');
      const text = (response.result.content as { text: string }[])[0].text;
      const correlationId = /correlation id ([0-9a-f-]{36})/.exec(text)?.[1];
      expect(correlationId).toBeDefined();
      const lines = errorLog.mock.calls.map((call) => String(call[0]));
      expect(lines.some((line) => line.includes(correlationId!) && line.includes(SECRET_COLUMN))).toBe(true);
    });

    it('treats a BadRequestException from the tool (a pipe) as invalid arguments, per negotiated version', async () => {
      const modern = await client.result('tools/call', { name: 'pipe-reject' }, ctx);
      const legacy = await client.error('tools/call', { name: 'pipe-reject' }, await client.initialize('2025-06-18'));

      expect(modern).toStrictEqual({
        content: [
          { type: 'text', text: "Invalid arguments for tool 'pipe-reject': limit must not be greater than 50" },
        ],
        isError: true,
      });
      expect(legacy).toMatchObject({ code: -32602, data: { detail: expect.stringContaining('greater than 50') } });
    });

    // A tool that throws gives an isError: true result (docs/decisions/0002-error-codes-and-http-statuses.md;
    // docs/tools.md: "throw any Error and the model gets an isError: true result with its message"): a business failure
    // such as NotFoundException is a tool execution error. McpToolRun.failure rethrows every
    // HttpException but 400/422, so the client gets a JSON-RPC -32602 error instead.
    it('turns a NotFoundException thrown by a tool into an isError result with its text', async () => {
      const result = await client.result('tools/call', { name: 'missing-note' }, ctx);

      expect(result).toStrictEqual({ content: [{ type: 'text', text: 'Note 7 does not exist' }], isError: true });
    });

    it('turns an InternalServerErrorException thrown by a tool into an isError result', async () => {
      const response = asSuccess(await client.dispatch(request('tools/call', { name: 'upstream-down' }), ctx));

      expect(response.result.isError).toBe(true);
      expect(JSON.stringify(response)).not.toContain(SECRET_COLUMN);
    });

    it('never leaks the text of an InternalServerErrorException thrown by a tool', async () => {
      const response = await client.dispatch(request('tools/call', { name: 'upstream-down' }), ctx);

      expect(JSON.stringify(response)).not.toContain(SECRET_COLUMN);
      expect(JSON.stringify(response)).toMatch(/correlation/);
    });

    it.each(['__proto__', 'constructor', 'toString'])(
      'answers the tool name %p as an unknown tool (-32602)',
      async (name) => {
        expect(await client.error('tools/call', { name }, ctx)).toMatchObject({ code: -32602, data: { name } });
      },
    );

    it('runs a DTO-typed tool with a DTO instance', async () => {
      const result = await client.result('tools/call', { name: 'label', arguments: { label: 'x' } }, ctx);

      expect(result).toStrictEqual({ content: [{ type: 'text', text: JSON.stringify({ label: 'x', isDto: true }) }] });
    });
  });

  describe('resources', () => {
    let ctx: Awaited<ReturnType<McpTestClient['initialize']>>;

    beforeAll(async () => {
      ctx = await client.initialize();
    });

    it('lists resources with name defaulting to the URI', async () => {
      const result = await client.result('resources/list', {}, ctx);

      expect(result).toStrictEqual({
        resources: [
          { uri: 'notes://all', name: 'notes', mimeType: 'application/json' },
          { uri: 'system://info', name: 'system://info' },
        ],
      });
    });

    it('reads a resource returning an object as JSON text', async () => {
      expect(await client.result('resources/read', { uri: 'system://info' }, ctx)).toStrictEqual({
        contents: [{ uri: 'system://info', mimeType: 'application/json', text: '{"ok":true}' }],
      });
    });

    it('answers an unregistered URI with -32002, data.uri and data.detail', async () => {
      const error = await client.error('resources/read', { uri: 'notes://missing' }, ctx);

      expect(error).toStrictEqual({
        code: -32002,
        message: 'Resource not found',
        data: { uri: 'notes://missing', detail: expect.stringContaining('notes://missing') },
      });
    });

    it('matches URIs exactly', async () => {
      expect(await client.error('resources/read', { uri: 'SYSTEM://info' }, ctx)).toMatchObject({ code: -32002 });
      expect(await client.error('resources/read', { uri: 'system://info/' }, ctx)).toMatchObject({ code: -32002 });
    });

    it.each([
      ['missing', {}],
      ['a number', { uri: 1 }],
      ['an object', { uri: { href: 'system://info' } }],
    ])('answers -32602 naming uri when it is %s', async (_label, params) => {
      const error = await client.error('resources/read', params, ctx);

      expect(error).toMatchObject({
        code: -32602,
        message: 'Invalid params',
        data: { detail: expect.stringContaining("'uri'") },
      });
    });

    it("passes a handler's McpInvalidParamsException through as -32602 with its detail", async () => {
      const error = await client.error('resources/read', { uri: 'notes://all' }, ctx);

      expect(error).toStrictEqual({ code: -32602, message: 'Invalid params', data: { detail: 'No notes exist yet' } });
    });
  });

  describe('prompts', () => {
    let ctx: Awaited<ReturnType<McpTestClient['initialize']>>;

    beforeAll(async () => {
      ctx = await client.initialize();
    });

    it('gets a prompt with its arguments', async () => {
      const result = await client.result(
        'prompts/get',
        { name: 'summarize', arguments: { topic: 'MCP', tone: 'dry' } },
        ctx,
      );

      expect(result).toStrictEqual({
        description: 'Summarizes a topic',
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize MCP in a dry tone' } }],
      });
    });

    it('answers an unknown prompt with -32602', async () => {
      expect(await client.error('prompts/get', { name: 'nope' }, ctx)).toMatchObject({
        code: -32602,
        data: { detail: expect.stringContaining("'nope'") },
      });
    });

    it('answers a missing name with -32602', async () => {
      expect(await client.error('prompts/get', {}, ctx)).toMatchObject({ code: -32602 });
    });

    it('answers a missing required argument with -32602 naming it', async () => {
      const error = await client.error('prompts/get', { name: 'summarize', arguments: { tone: 'dry' } }, ctx);

      expect(error).toMatchObject({ code: -32602, data: { detail: expect.stringContaining("'topic'") } });
    });

    it('answers a non-string argument with -32602 naming it', async () => {
      const error = await client.error('prompts/get', { name: 'summarize', arguments: { topic: 'MCP', tone: 5 } }, ctx);

      expect(error).toMatchObject({ code: -32602, data: { detail: expect.stringContaining("'tone'") } });
    });
  });

  describe('batches', () => {
    it('answers the requests of a batch on a 2025-03-26 session, in order, skipping notifications', async () => {
      const ctx = await client.initialize('2025-03-26');

      const answer = await client.dispatch(
        [
          request('ping', undefined, 'a'),
          notification('notifications/initialized'),
          request('tools/call', { name: 'record' }, 'b'),
        ],
        ctx,
      );

      expect(Array.isArray(answer)).toBe(true);
      const responses = answer as JsonRpcResponse[];
      expect(responses.map((response) => response.id)).toEqual(['a', 'b']);
      expect(responses.map((response) => 'result' in response)).toEqual([true, true]);
      expect(executions.get('record')).toBe(1);
    });

    it('answers invalid members of a batch one by one', async () => {
      const ctx = await client.initialize('2025-03-26');

      const answer = (await client.dispatch([1, request('ping', undefined, 'ok')], ctx)) as JsonRpcResponse[];

      expect(answer).toHaveLength(2);
      expect(answer[0]).toMatchObject({ id: null, error: { code: -32600 } });
      expect(answer[1]).toMatchObject({ id: 'ok', result: {} });
    });

    it('accepts a batch on a stateless request without a version header (2025-03-26 assumed)', async () => {
      const answer = await client.dispatch(
        [request('ping', undefined, 1), request('ping', undefined, 2)],
        statelessContext(),
      );

      expect(answer).toHaveLength(2);
    });

    it('answers an empty batch with one -32600 error, not an array', async () => {
      const answer = await client.dispatch([], await client.initialize('2025-03-26'));

      expect(asError(answer)).toMatchObject({ id: null, error: { code: -32600 } });
    });

    it('refuses a batch that contains initialize, running none of it', async () => {
      const answer = await client.dispatch(
        [request('initialize', { protocolVersion: '2025-03-26' }), request('tools/call', { name: 'record' })],
        statelessContext('2025-03-26'),
      );

      expect(asError(answer)).toMatchObject({ id: null, error: { code: -32600 } });
      expect(executions.get('record')).toBeUndefined();
    });

    it.each<McpProtocolVersion>(['2025-11-25', '2025-06-18'])('refuses any batch on a %s session', async (version) => {
      const answer = await client.dispatch(
        [request('tools/call', { name: 'record' })],
        await client.initialize(version),
      );

      expect(asError(answer)).toMatchObject({ id: null, error: { code: -32600 } });
      expect(executions.get('record')).toBeUndefined();
    });

    it('refuses a batch on a stateless request whose header says 2025-06-18', async () => {
      expect(asError(await client.dispatch([request('ping')], statelessContext('2025-06-18'))).error.code).toBe(-32600);
    });

    it('refuses a batch on a transport with sessions before initialize, running none of it', async () => {
      const answer = await client.answer([request('tools/call', { name: 'record' })], httpContext());

      expect(answer?.status).toBe(400);
      expect(asError(parseAnswer(answer))).toMatchObject({ id: null, error: { code: -32600 } });
      expect(executions.get('record')).toBeUndefined();
    });

    it.each<[string, Partial<InboundFrame>]>([['a modern-only connection', { eras: 'modern' }]])(
      'refuses any batch on %s with 400 -32600, running none of it',
      async (_what, frame) => {
        const ctx = httpContext({ sessionsEnabled: false });
        const answer = await client.answer([request('tools/call', { name: 'record', _meta: MODERN_META })], ctx, frame);

        expect(answer?.status).toBe(400);
        expect(asError(parseAnswer(answer))).toMatchObject({ id: null, error: { code: -32600 } });
        expect(executions.get('record')).toBeUndefined();
      },
    );

    it.each([
      ['tools/call with the modern _meta', { name: 'record', _meta: MODERN_META }, 'tools/call'],
      [
        'tools/call with a malformed modern _meta',
        { name: 'record', _meta: { [PROTOCOL_VERSION_META]: 7 } },
        'tools/call',
      ],
      ['server/discover', { _meta: MODERN_META }, 'server/discover'],
    ])('refuses a batch element that is %s with -32600 and runs the others', async (_what, params, method) => {
      const ctx = await client.initialize('2025-03-26');

      const answer = (await client.dispatch(
        [
          request(method, params, 'modern'),
          request('tools/call', { name: 'record' }, 'legacy'),
          notification('notifications/cancelled', { requestId: 1, _meta: MODERN_META }),
        ],
        ctx,
      )) as JsonRpcResponse[];

      expect(answer).toEqual([
        { jsonrpc: '2.0', id: 'modern', error: expect.objectContaining({ code: -32600 }) },
        expect.objectContaining({ id: 'legacy', result: expect.anything() }),
      ]);
      expect(executions.get('record')).toBe(1);
    });

    it('answers nothing to a batch of notifications', async () => {
      const answer = await client.dispatch(
        [notification('notifications/initialized'), notification('notifications/cancelled', { requestId: 1 })],
        await client.initialize('2025-03-26'),
      );

      expect(answer).toBeUndefined();
    });
  });

  describe('notifications', () => {
    it('never runs a tool for a tools/call sent without an id', async () => {
      const ctx = await client.initialize();

      const answer = await client.dispatch(notification('tools/call', { name: 'record' }), ctx);

      expect(answer).toBeUndefined();
      expect(executions.get('record')).toBeUndefined();
    });

    it('answers nothing to unknown notifications, even before initialize', async () => {
      expect(await client.dispatch(notification('notifications/whatever'), httpContext())).toBeUndefined();
    });
  });

  describe('prototype pollution', () => {
    afterEach(() => {
      delete (Object.prototype as Record<string, unknown>).polluted;
    });

    it.each(['anything', 'label', 'greet', 'record'])(
      'does not pollute Object.prototype through tools/call arguments (%s)',
      async (name) => {
        const message = JSON.parse(
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":{"__proto__":{"polluted":1},"label":"x","name":"Ada"}}}`,
        );

        await client.dispatch(message, await client.initialize());

        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.prototype).not.toHaveProperty('polluted');
      },
    );

    it('does not pollute Object.prototype through params or _meta', async () => {
      const ctx = await client.initialize();
      const messages = [
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record","__proto__":{"polluted":1}}}',
        '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"__proto__":{"polluted":1}}}}',
        '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"__proto__":{"polluted":1}},"clientInfo":{"__proto__":{"polluted":1}}}}',
      ];

      for (const text of messages)
        await client.dispatch(JSON.parse(text), text.includes('initialize') ? httpContext() : ctx);

      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('hands the arguments object to the tool with __proto__ as a plain own key', async () => {
      const message = JSON.parse(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"anything","arguments":{"__proto__":{"polluted":1}}}}',
      );

      const response = asSuccess(await client.dispatch(message, await client.initialize()));

      expect(response.result).toStrictEqual({ content: [{ type: 'text', text: '{"keys":["__proto__"]}' }] });
    });
  });

  describe("the transport's prepare", () => {
    const classified = (payload: unknown) => client.classifier.classify(payload, { eras: 'dual' });

    it('runs before a 2025-era request is served', async () => {
      const before = executions.get('record') ?? 0;
      let seen: number | undefined;
      const prepare = async () => {
        await Promise.resolve();
        seen = executions.get('record') ?? 0;
      };
      const answer = await client.dispatcher.dispatch(
        classified(request('tools/call', { name: 'record' })),
        statelessContext(),
        prepare,
      );
      expect(seen).toBe(before);
      expect(executions.get('record')).toBe(before + 1);
      expect(asSuccess(parseAnswer(answer)).result).toMatchObject({ content: [{ type: 'text', text: 'recorded' }] });
    });

    it.each([
      ['rejects', () => Promise.reject(new McpInvalidParamsException('refused by the transport'))],
      [
        'throws',
        (): Promise<void> => {
          throw new McpInvalidParamsException('refused by the transport');
        },
      ],
    ])('that %s rejects the dispatch with the mapped exception, and nothing is served', async (_case, prepare) => {
      const before = executions.get('record') ?? 0;
      await expect(
        client.dispatcher.dispatch(classified(request('tools/call', { name: 'record' })), statelessContext(), prepare),
      ).rejects.toBeInstanceOf(McpInvalidParamsException);
      expect(executions.get('record') ?? 0).toBe(before);
    });
  });
});
