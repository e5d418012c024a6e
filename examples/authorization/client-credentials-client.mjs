// The "Run it" client of docs/authorization.md: the official SDK client with the client credentials
// grant. It meets the 401, discovers the Protected Resource Metadata and the authorization
// server from it, gets a token for this MCP server (resource indicator) and calls tools.
//
//   node examples/authorization/client-credentials-client.mjs [--endpoint http://127.0.0.1:5000/mcp]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
};
const endpoint = option('endpoint', 'http://127.0.0.1:5000/mcp');

const authProvider = new ClientCredentialsProvider({
  clientId: option('client-id', 'demo-client'),
  clientSecret: option('client-secret', 'demo-secret'),
  scope: 'notes:read notes:write',
  expectedIssuer: option('issuer', 'http://127.0.0.1:4000'),
});
const client = new Client({ name: 'authorization-example', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider });
await client.connect(transport);

const created = await client.callTool({ name: 'notes.create', arguments: { title: 'Hello', body: 'from OAuth' } });
console.log('notes.create ->', JSON.stringify(created.structuredContent));
const notes = await client.readResource({ uri: 'db://notes' });
console.log('db://notes ->', notes.contents[0].text);
// SDK v1's close() sends no DELETE: end the session here, or it lives until the idle timeout.
await transport.terminateSession();
await client.close();
