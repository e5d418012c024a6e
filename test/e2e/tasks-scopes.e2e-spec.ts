/**
 * The scopes of a tool apply to its task: a token of the same principal without the tool's scope
 * reads through the task methods nothing a direct call with it would be refused (403
 * `insufficient_scope`), in the tasks extension (2026-07-28), against a real authorization
 * server. Handlers wait at gates the test opens.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool, RequireScopes } from '@app/mcp';
import { Gates } from '../fixtures/gates.js';
import { freePort } from '../support/free-port.js';
import { modernRequest } from '../support/modern-tasks-client.js';
import { NOTES_SCOPES, resourceOn, startAuthApp, type AuthApp } from '../support/oauth/auth-app.js';
import { bearer } from '../support/oauth/auth-http.js';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { until } from '../support/until.js';

const ALL_SCOPES = NOTES_SCOPES.join(' ');

@Injectable()
class ScopedTaskTools {
  constructor(private readonly gates: Gates) {}

  @McpTool({
    name: 'secret_export',
    description: 'Waits at its gate, then answers a secret',
    input: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    taskSupport: 'optional',
  })
  @RequireScopes('notes:write')
  async export(@McpArgs('key') key: string) {
    await this.gates.gate(key).pass();
    return `secret of ${key}`;
  }
}

describe("Tasks keep their tool's scopes", () => {
  let provider: OidcHarness;
  let app: AuthApp;
  let gates: Gates;

  const token = (scope: string) => provider.token({ resource: app.endpoint, scope });
  const request = async (method: string, params: Record<string, unknown>, scope: string) =>
    modernRequest(app.endpoint, method, params, { headers: bearer(await token(scope)) });

  beforeAll(async () => {
    const port = await freePort();
    provider = await OidcHarness.start({
      resources: { [resourceOn(port)]: { scope: ALL_SCOPES } },
      clients: [{ clientId: 'mcp-client', clientSecret: 'mcp-secret', scope: ALL_SCOPES }],
    });
    app = await startAuthApp(
      { provider, providers: [Gates, ScopedTaskTools], mcp: { tasks: { handoffMs: 20 } } },
      port,
    );
    gates = app.app.get(Gates);
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  it('a narrower token of the same principal gets 403 insufficient_scope from the task methods, as from the call', async () => {
    const created = (await request('tools/call', { name: 'secret_export', arguments: { key: 's1' } }, ALL_SCOPES))
      .message.result;
    expect(created.resultType).toBe('task');
    gates.gate('s1').open();
    await until(
      async () =>
        (await request('tasks/get', { taskId: created.taskId }, ALL_SCOPES)).message.result?.status === 'completed',
      'the task completed',
    );
    const direct = await request('tools/call', { name: 'secret_export', arguments: { key: 's2' } }, 'notes:read');
    expect(direct.status).toBe(403);
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const narrow = await request(method, { taskId: created.taskId }, 'notes:read');
      expect(narrow.status).toBe(403);
      expect(narrow.message.error).toMatchObject({ code: direct.message.error!.code });
      expect(narrow.text).not.toContain('secret of s1');
    }
    const full = await request('tasks/get', { taskId: created.taskId }, ALL_SCOPES);
    expect(full.message.result.result.content[0].text).toBe('secret of s1');
  });
});
