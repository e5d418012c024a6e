/**
 * The built reference gateway (`node dist/src/main.js`, as `npm start` runs it) with its output
 * on a pipe: what a newcomer sees by default. One log line per tool call, no colour codes when
 * the output is not a terminal, the address actually bound, and no `X-Powered-By`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildGatewayIfNeeded, GATEWAY_ENTRY, PROJECT_ROOT } from '../support/stdio-client.js';
import { watchProcess, type WatchedProcess } from '../support/watched-process.js';

/** The environment of the gateway: the test runner's, minus what changes logging. */
function plainEnv(): NodeJS.ProcessEnv {
  const { NO_COLOR: _a, FORCE_COLOR: _b, NEST_LOG_LEVEL: _c, ...env } = process.env;
  return { ...env, URLS: 'http://127.0.0.1:0' };
}

describe('the reference gateway by default', () => {
  let gateway: WatchedProcess;
  let endpoint: string;

  beforeAll(async () => {
    await buildGatewayIfNeeded();
    gateway = watchProcess(process.execPath, [GATEWAY_ENTRY], { cwd: PROJECT_ROOT, env: plainEnv() });
    const { match } = await gateway.waitForLine(/MCP endpoints: (http:\/\/127\.0\.0\.1:\d+\/mcp) /);
    endpoint = match[1];
  }, 240_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  it('logs the address it bound (URLS asked for port 0)', () => {
    expect(endpoint).not.toMatch(/:0\/mcp$/);
  });

  it('names the HTTP platform it runs on in its endpoints line: Express by default', async () => {
    const { match } = await gateway.waitForLine(/MCP endpoints: .*; HTTP platform: (\w+)$/);
    expect(match[1]).toBe('express');
  });

  it("says at start-up that it answers subscribe with the reference gateway's shape, and how to get the MCP schema's", async () => {
    const { match } = await gateway.waitForLine(/Wire profile 'gateway': (.*)$/);
    expect(match[1]).toContain('{ subscribed: true, uri }');
    expect(match[1]).toContain('MCP_WIRE_PROFILE=strict');
  });

  it('logs each tool call on one line, and nothing in colour on a pipe', async () => {
    const client = new Client({ name: 'defaults', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'one' } });
      const first = await gateway.waitForLine(/\[McpTools\] echo completed/);
      await client.callTool({ name: 'echo', arguments: { text: 'two' } });
      const second = await gateway.waitForLine(/\[McpTools\] echo completed/, 10_000, first.index + 1);
      // Everything a call logs is written before its response; so up to the second call's line,
      // the two calls together logged exactly these two lines about tools.
      const toolLines = gateway.lines.slice(0, second.index + 1).filter((line) => line.includes('[McpTools]'));
      expect(toolLines).toHaveLength(2);
      expect(toolLines[0]).toMatch(/ DEBUG \[McpTools\] echo completed in [\d.]+ ms \(request \d+, streamable-http\)$/);
    } finally {
      await client.close();
    }
    expect(gateway.lines.filter((line) => line.includes('\u001b['))).toEqual([]);
  });

  it('logs a rejected tool call too (invalid arguments, unknown tool), saying why', async () => {
    const client = new Client({ name: 'defaults', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    try {
      const invalid = await client.callTool({ name: 'add', arguments: { b: 1 } });
      expect(invalid.isError).toBe(true);
      // A missing argument is told as missing, not as a value of the wrong type.
      expect((invalid.content as { text: string }[])[0].text).toBe("Invalid arguments for tool 'add': a is required");
      const rejected = await gateway.waitForLine(/ WARN \[McpTools\] add rejected \(invalid-arguments\) /);
      expect(gateway.lines[rejected.index]).toMatch(
        /\(request \d+, streamable-http\): Invalid arguments for tool 'add': a is required$/,
      );
      await expect(client.callTool({ name: 'no.such\ntool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      const unknown = await gateway.waitForLine(/ WARN \[McpTools\] "no\.such\\ntool" rejected \(unknown-tool\) /);
      expect(unknown.index).toBeGreaterThan(rejected.index);
    } finally {
      await client.close();
    }
  });

  it('sends no X-Powered-By, on the MCP endpoint or elsewhere', async () => {
    const mcp = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(200);
    expect(mcp.headers.get('x-powered-by')).toBeNull();
    const other = await fetch(new URL('/no-such-page', endpoint));
    expect(other.status).toBe(404);
    expect(other.headers.get('x-powered-by')).toBeNull();
    await Promise.all([mcp.body?.cancel(), other.body?.cancel()]);
  });
});

describe('the reference gateway with MCP_HTTP_PLATFORM=fastify', () => {
  let gateway: WatchedProcess | undefined;

  afterAll(async () => {
    await gateway?.stop();
  });

  it('runs on Fastify, says so, serves a tool call and sends no X-Powered-By', async () => {
    await buildGatewayIfNeeded();
    gateway = watchProcess(process.execPath, [GATEWAY_ENTRY], {
      cwd: PROJECT_ROOT,
      env: { ...plainEnv(), MCP_HTTP_PLATFORM: 'fastify' },
    });
    const { match } = await gateway.waitForLine(
      /MCP endpoints: (http:\/\/127\.0\.0\.1:\d+\/mcp) .*; HTTP platform: (\w+)$/,
    );
    expect(match[2]).toBe('fastify');
    const client = new Client({ name: 'defaults-fastify', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(match[1]));
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'on fastify' } });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('on fastify');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    const other = await fetch(new URL('/no-such-page', match[1]));
    expect(other.status).toBe(404);
    expect(other.headers.get('x-powered-by')).toBeNull();
    await other.body?.cancel();
  }, 240_000);
});
