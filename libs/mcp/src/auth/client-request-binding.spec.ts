import { afterEach, describe, expect, it } from '@jest/globals';
import { McpClientRequests } from '../client-requests/mcp-client-requests.js';
import { McpTestClient } from '../testing/mcp-testing-module.js';
import type { McpPrincipal } from '../model/mcp-principal.js';

const principal = (clientId: string, scopes: string[] = []): McpPrincipal => ({
  issuer: 'https://as.example.com',
  subject: clientId,
  clientId,
  scopes,
  audience: ['https://mcp.example.com/mcp'],
  claims: {},
});

describe('server→client requests bound to the principal that asked', () => {
  let client: McpTestClient | undefined;

  afterEach(() => client?.close());

  it('takes an answer only from the same session and principal (any scopes)', async () => {
    client = await McpTestClient.create();
    const requests = client.module.get(McpClientRequests);
    const sent: string[] = [];
    const asking = requests.request(
      'session-1',
      'elicitation/create',
      {},
      {
        send: (json) => sent.push(json) > 0,
        principal: principal('alice'),
      },
    );
    const { id } = JSON.parse(sent[0]) as { id: string };
    const answer = { jsonrpc: '2.0' as const, id, result: { action: 'accept' } };
    expect(requests.receive('session-1', answer, principal('mallory'))).toBe(false);
    expect(requests.receive('session-1', answer, undefined)).toBe(false);
    expect(requests.receive('session-2', answer, principal('alice'))).toBe(false);
    expect(requests.receive('session-1', answer, principal('alice', ['more']))).toBe(true);
    await expect(asking).resolves.toEqual({ action: 'accept' });
  });
});
