/**
 * Test helpers shared by the library's specs (not part of the public API): an `McpModule`
 * testing module without the HTTP controller, and a thin client over `McpDispatcher.dispatch`.
 */
import 'reflect-metadata';
import type { Provider, Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import type { McpProtocolVersion } from '../mcp.constants.js';
import { McpModule } from '../mcp.module.js';
import type {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcResponse,
  JsonRpcSuccessResponse,
} from '../model/json-rpc.js';
import type { McpAnswer } from '../protocol/mcp-answer.js';
import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import { McpDispatcher } from '../protocol/dispatch/mcp.dispatcher.js';
import { McpInboundClassifier } from '../protocol/inbound/inbound-classifier.js';
import type { InboundFrame } from '../protocol/inbound/inbound.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import { MCP_RESOLVED_OPTIONS } from '../mcp.constants.js';

export const TEST_SERVER_INFO = { name: 't', version: '1' } as const;

export interface McpFixture {
  /** Module options besides `serverInfo` (which defaults to `TEST_SERVER_INFO`). */
  options?: Partial<McpModuleOptions>;
  providers?: Provider[];
  controllers?: Type[];
}

/** Compiles (but does not init) a testing module with `McpModule.forRoot({ ..., http: false })`. */
export function compileMcpModule(fixture: McpFixture = {}): Promise<TestingModule> {
  return Test.createTestingModule({
    imports: [McpModule.forRoot({ serverInfo: { ...TEST_SERVER_INFO }, ...fixture.options, http: false })],
    providers: fixture.providers ?? [],
    controllers: fixture.controllers ?? [],
  }).compile();
}

/** Compiles and inits (discovery runs in `init()`). */
export async function createMcpModule(fixture: McpFixture = {}): Promise<TestingModule> {
  const module = await compileMcpModule(fixture);
  await module.init();
  return module;
}

/** A dispatch context for Streamable HTTP; sessions on unless told otherwise. */
export const httpContext = (overrides: Partial<McpDispatchContext> = {}): McpDispatchContext => ({
  transport: 'streamable-http',
  sessionsEnabled: true,
  ...overrides,
});

/** A stateless (session management off) context, optionally with an `MCP-Protocol-Version` header. */
export const statelessContext = (headerProtocolVersion?: McpProtocolVersion): McpDispatchContext =>
  httpContext({ sessionsEnabled: false, ...(headerProtocolVersion ? { headerProtocolVersion } : {}) });

let nextId = 1;

/** A JSON-RPC request with a fresh numeric id (or the given one). */
export const request = (method: string, params?: Record<string, unknown>, id: JsonRpcId = nextId++) => ({
  jsonrpc: '2.0' as const,
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

export const notification = (method: string, params?: Record<string, unknown>) => ({
  jsonrpc: '2.0' as const,
  method,
  ...(params === undefined ? {} : { params }),
});

const describeResponse = (response: unknown) => JSON.stringify(response, null, 2);

/** The parsed response(s) of a dispatcher answer. */
export const parseAnswer = (answer: McpAnswer | undefined): JsonRpcResponse | JsonRpcResponse[] | undefined =>
  answer === undefined ? undefined : (JSON.parse(answer.json) as JsonRpcResponse | JsonRpcResponse[]);

/** Narrows a dispatch outcome to one success response (fails loudly otherwise). */
export function asSuccess(response: JsonRpcResponse | JsonRpcResponse[] | undefined): JsonRpcSuccessResponse {
  if (!response || Array.isArray(response) || !('result' in response)) {
    throw new Error(`Expected a success response, got ${describeResponse(response)}`);
  }
  return response;
}

/** Narrows a dispatch outcome to one error response (fails loudly otherwise). */
export function asError(response: JsonRpcResponse | JsonRpcResponse[] | undefined): JsonRpcErrorResponse {
  if (!response || Array.isArray(response) || !('error' in response)) {
    throw new Error(`Expected an error response, got ${describeResponse(response)}`);
  }
  return response;
}

/** A small client over the inbound classifier and the dispatcher of a testing module, as transports use them. */
export class McpTestClient {
  readonly dispatcher: McpDispatcher;
  readonly classifier: McpInboundClassifier;
  private readonly options: ResolvedMcpOptions;

  constructor(readonly module: TestingModule) {
    this.dispatcher = module.get(McpDispatcher);
    this.classifier = module.get(McpInboundClassifier);
    this.options = module.get(MCP_RESOLVED_OPTIONS);
  }

  static async create(fixture: McpFixture = {}): Promise<McpTestClient> {
    return new McpTestClient(await createMcpModule(fixture));
  }

  /**
   * Classifies and dispatches, and parses the answer back (the dispatcher itself answers
   * serialized JSON). `frame` is what the transport knows of it: the eras it serves (the module's
   * `protocol` by default), HTTP headers.
   */
  async dispatch(payload: unknown, ctx: McpDispatchContext = statelessContext(), frame?: Partial<InboundFrame>) {
    return parseAnswer(await this.answer(payload, ctx, frame));
  }

  /** Classifies and dispatches, and returns the answer as the transports get it (serialized, with its status). */
  answer(
    payload: unknown,
    ctx: McpDispatchContext = statelessContext(),
    frame?: Partial<InboundFrame>,
  ): Promise<McpAnswer | undefined> {
    const inbound = this.classifier.classify(payload, { eras: this.options.protocol, ...frame });
    return this.dispatcher.dispatch(inbound, ctx);
  }

  /** Sends a request and returns its `result`; fails when the answer is an error. */
  async result(method: string, params?: Record<string, unknown>, ctx?: McpDispatchContext) {
    return asSuccess(await this.dispatch(request(method, params), ctx)).result;
  }

  /** Sends a request and returns its `error`; fails when the answer is a success. */
  async error(method: string, params?: Record<string, unknown>, ctx?: McpDispatchContext): Promise<JsonRpcErrorObject> {
    return asError(await this.dispatch(request(method, params), ctx)).error;
  }

  /** Runs `initialize` on a fresh sessionful context and returns it (with its session set). */
  async initialize(protocolVersion: string = '2025-11-25'): Promise<McpDispatchContext> {
    const ctx = httpContext();
    await this.result(
      'initialize',
      { protocolVersion, capabilities: {}, clientInfo: { name: 'spec', version: '0' } },
      ctx,
    );
    if (!ctx.session) throw new Error('initialize did not create a session');
    return ctx;
  }

  close(): Promise<void> {
    return this.module.close();
  }
}
