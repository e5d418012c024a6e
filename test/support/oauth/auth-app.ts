/**
 * A fixture application in resource-server mode, on a port chosen before it is built: its
 * canonical resource URI (the `aud` of its tokens) names that port.
 */
import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { McpAuthOptions } from '@app/mcp';
import { createFixtureApp, type FixtureAppOptions } from '../../fixtures/fixture-app.js';
import { freePort } from '../free-port.js';
import type { OidcHarness } from './oidc-harness.js';

export const NOTES_SCOPES = ['notes:read', 'notes:write'];

export interface AuthApp {
  app: INestApplication;
  origin: string;
  /** The MCP endpoint, which is also the canonical resource URI. */
  endpoint: string;
  close(): Promise<void>;
}

export interface AuthAppOptions extends FixtureAppOptions {
  /** The authorization server whose tokens the app accepts. */
  provider: OidcHarness;
  /** Overrides of the `auth` option. */
  auth?: Partial<McpAuthOptions>;
  /** Installs the ws adapter (for `ws: {}`). @default true */
  websocket?: boolean;
}

/** The canonical resource URI of an app on `port` (its MCP endpoint). */
export const resourceOn = (port: number, path = '/mcp'): string => `http://127.0.0.1:${port}${path}`;

export async function startAuthApp(options: AuthAppOptions, port?: number): Promise<AuthApp> {
  const chosen = port ?? (await freePort());
  const path = options.path ?? (options.mcp?.http ? (options.mcp.http.path ?? '/mcp') : '/mcp');
  const endpoint = resourceOn(chosen, path);
  const auth: McpAuthOptions = {
    resource: endpoint,
    authorizationServers: [options.provider.issuer],
    scopesSupported: NOTES_SCOPES,
    ...options.auth,
  };
  const app = await createFixtureApp({
    ...options,
    mcp: options.mcpModule ? options.mcp : { ...options.mcp, auth: { ...auth, ...options.mcp?.auth } },
    configure: (created) => {
      if (options.websocket !== false) created.useWebSocketAdapter(new WsAdapter(created));
      options.configure?.(created);
    },
  });
  await app.listen(chosen, '127.0.0.1');
  return { app, origin: `http://127.0.0.1:${chosen}`, endpoint, close: () => app.close() };
}
