import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module } from '@nestjs/common';
import { BasicTools } from '../fixtures/basic.tools.js';
import { FixtureState } from '../fixtures/fixture-state.js';
import { GuardedTools } from '../fixtures/guarded.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { DenyGuard, InspectingGuard, UnauthorizedGuard } from '../fixtures/test.guard.js';
import { initializeRequest, openSession, rawPost, rawRequest } from '../support/raw-http.js';
import { openSseClient } from '../support/sse-client.js';

/** A plain route of the application, which the direct mount must leave alone. */
@Controller('health')
class HealthController {
  @Get()
  health() {
    return { ok: true };
  }
}

@Module({ controllers: [HealthController] })
class HealthModule {}

describe("the direct mount (http: { mount: 'direct' })", () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [BasicTools, GuardedTools, FixtureState, InspectingGuard, DenyGuard, UnauthorizedGuard],
      imports: [HealthModule],
      mcp: { http: { path: '/mcp', mount: 'direct' }, limits: { maxBodyBytes: 1024 } },
    });
  });

  afterAll(() => fixture.close());

  it('serves the official SDK client', async () => {
    const { client } = await fixture.connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['alpha', 'open']));
    expect(await client.callTool({ name: 'alpha', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'a' }] });
  });

  it('keeps guards on MCP handlers', async () => {
    const { headers } = await openSession(fixture.endpoint);
    const denied = await rawPost(
      fixture.endpoint,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'denied' } },
      headers,
    );
    expect(denied.json.error.code).toBe(-32003);
  });

  it('answers the wire checks itself: parse errors, body limit, origin, sessions, methods', async () => {
    expect((await rawPost(fixture.endpoint, '{"jsonrpc":')).json.error.code).toBe(-32700);
    const tooLarge = await rawPost(
      fixture.endpoint,
      JSON.stringify({ ...initializeRequest(), pad: 'x'.repeat(2_000) }),
    );
    expect(tooLarge.status).toBe(413);
    expect((await rawPost(fixture.endpoint, initializeRequest(), { origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawPost(fixture.endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(400);
    expect((await rawRequest(fixture.endpoint, 'PUT')).status).toBe(405);

    const { headers } = await openSession(fixture.endpoint);
    const stream = await openSseClient(fixture.endpoint, { headers });
    expect(stream.status).toBe(200);
    stream.close();
    expect((await rawRequest(fixture.endpoint, 'DELETE', headers)).status).toBe(204);
    expect((await rawPost(fixture.endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers)).status).toBe(404);
  });

  it('leaves every other route to the application', async () => {
    const response = await fetch(`${fixture.origin}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});
