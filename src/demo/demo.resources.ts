import { Inject, Injectable } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  McpCtx,
  McpInvalidParamsException,
  McpResource,
  McpServerStats,
  McpToolMetricsHook,
  type McpRequestContext,
} from '@app/mcp';
import { GATEWAY_CONFIG, type GatewayConfig } from '../gateway.config.js';
import { NotesExportTools } from '../notes/notes-export.tools.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../gateway.info.js';
import { projectRoot } from '../project-root.js';

/** The project's README, served as a `file://` resource. */
const README_PATH = join(projectRoot(), 'README.md');
export const README_URI = pathToFileURL(README_PATH).href;

/** The demo's resources: system information, live metrics, the configuration and a file. */
@Injectable()
export class DemoResources {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly stats: McpServerStats,
    private readonly toolMetrics: McpToolMetricsHook,
    private readonly exports: NotesExportTools,
  ) {}

  @McpResource({
    uri: 'system://tool-metrics',
    name: 'Tool metrics',
    description: 'Per tool: calls, successes, failures and min/avg/max duration in milliseconds.',
    mimeType: 'application/json',
  })
  toolMetricsSnapshot() {
    return this.toolMetrics.snapshot();
  }

  @McpResource({
    uri: 'system://info',
    name: 'System information',
    description: 'Name, version, the protocol version of the reading request and uptime of the gateway.',
    mimeType: 'application/json',
  })
  info(@McpCtx() ctx: McpRequestContext) {
    return {
      name: GATEWAY_NAME,
      version: GATEWAY_VERSION,
      // The version that governs this very request: the session's negotiated one (which
      // MCP_PROTOCOL_VERSION fixes) in the 2025 era, the request's own in 2026-07-28.
      protocolVersion: ctx.protocolVersion,
      uptimeSeconds: Math.floor((Date.now() - this.stats.startedAt) / 1000),
    };
  }

  @McpResource({
    uri: 'system://metrics',
    name: 'Live metrics',
    description:
      'Memory use, open sessions, requests served and notes.export runs on this instance, read at the moment of the request.',
    mimeType: 'application/json',
  })
  async metrics() {
    const memory = process.memoryUsage();
    return {
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      openSessions: await this.stats.openSessions(),
      requestsServed: this.stats.requestsServed,
      exportsRunning: this.exports.exportsRunning,
    };
  }

  @McpResource({
    uri: 'config://gateway',
    name: 'Gateway configuration',
    description: 'The effective configuration of the gateway (it holds no secrets).',
    mimeType: 'application/json',
  })
  configuration() {
    return {
      url: this.config.url.origin,
      endpoint: '/mcp',
      sessions: !this.config.stateless,
      protocolVersion: this.config.protocolVersion ?? null,
      protocolEras: this.config.protocolEras,
      wireProfile: this.config.wireProfile,
      // Whether keys are configured; never the keys themselves.
      requestStateKeys: this.config.requestStateKeys ? 'configured' : 'random (this instance only)',
      // Where tokens come from: public facts (the metadata document says as much), no secrets.
      auth: this.config.auth ? { issuer: this.config.auth.issuer, audience: this.config.auth.audience } : null,
    };
  }

  @McpResource({
    uri: README_URI,
    name: 'README.md',
    title: 'Gateway README',
    description: 'How to install, run and use the gateway and the library.',
    mimeType: 'text/markdown',
  })
  async readme(): Promise<string> {
    try {
      return await readFile(README_PATH, 'utf8');
    } catch {
      throw new McpInvalidParamsException('The README file is missing on this installation');
    }
  }
}
