import { Injectable } from '@nestjs/common';
import { McpInvalidParamsException, McpInvalidRequestException } from '../../errors/mcp-protocol.exceptions.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { negotiateProtocolVersion } from '../../model/protocol-version.js';
import { principalBinding } from '../../model/mcp-principal.js';
import { callerKeyOf } from '../../auth/caller-key.js';
import { argumentDepthError } from '../../schema/argument-depth.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpMethods } from './mcp-methods.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** `initialize` and `ping`. */
@Injectable()
export class LifecycleHandler implements McpMethodGroup {
  private readonly serverInfo: Record<string, unknown>;

  constructor(
    @McpOptions('server') private readonly options: McpOptionGroup<'server'>,
    private readonly sessions: McpSessionManager,
    private readonly table: McpMethods,
  ) {
    table.add(this);
    this.serverInfo = Object.fromEntries(Object.entries(options.serverInfo).filter(([, v]) => v !== undefined));
  }

  methods(): Record<string, McpMethodFn> {
    return {
      initialize: (params, _ctx, dispatch) => this.initialize(params, dispatch),
      ping: async () => ({}),
    };
  }

  private async initialize(params: Record<string, unknown>, dispatch: McpDispatchContext) {
    if (dispatch.session) {
      throw new McpInvalidRequestException(
        'This session is already initialized; start a new session to initialize again',
      );
    }
    if (typeof params.protocolVersion !== 'string') {
      throw new McpInvalidParamsException("Missing required parameter 'protocolVersion'");
    }
    const protocolVersion = negotiateProtocolVersion(params.protocolVersion, this.options.protocolVersion);
    // Stored with the session, so serialized (a recursive walk) by a shared backend.
    const tooDeep = argumentDepthError(
      { capabilities: params.capabilities, clientInfo: params.clientInfo },
      this.options.maxArgumentDepth,
    );
    if (tooDeep !== undefined) throw new McpInvalidParamsException(tooDeep);
    if (dispatch.sessionsEnabled) {
      dispatch.session = await this.sessions.create(
        {
          protocolVersion,
          transport: dispatch.transport,
          clientInfo: asObject(params.clientInfo),
          clientCapabilities: asObject(params.capabilities),
          // The session belongs to whoever created it (resource-server mode).
          ...(dispatch.auth ? { principal: principalBinding(dispatch.auth) } : {}),
        },
        callerKeyOf(dispatch.auth, dispatch.request),
      );
    }
    const result: Record<string, unknown> = {
      protocolVersion,
      capabilities: this.table.capabilities(),
      serverInfo: this.serverInfo,
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }
}

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
