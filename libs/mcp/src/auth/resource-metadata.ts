import type { McpAuthOptions } from '../interfaces/mcp-auth-options.interface.js';

/** RFC 9728 §3: the well-known suffix of Protected Resource Metadata. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The path of a resource URI, `''` for the root (`https://host` and `https://host/`). */
const resourcePath = (resource: string): string => {
  const path = new URL(resource).pathname;
  return path === '/' ? '' : path;
};

/**
 * The metadata URL of a resource (RFC 9728 §3.1): the well-known suffix inserted between the
 * host and the path, `https://host/mcp` → `https://host/.well-known/oauth-protected-resource/mcp`.
 * It is what every 401 names in `resource_metadata`.
 */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${resourcePath(resource)}`;
}

/**
 * The paths the metadata is served at: the path-aware one of the resource, the root one (MCP
 * clients try both, in that order), and the path-aware one of the local endpoint when a proxy
 * mounts the server elsewhere than its canonical URI says.
 */
export function resourceMetadataPaths(resource: string, localEndpointPath?: string): string[] {
  const paths = [`${PROTECTED_RESOURCE_WELL_KNOWN}${resourcePath(resource)}`, PROTECTED_RESOURCE_WELL_KNOWN];
  if (localEndpointPath !== undefined && localEndpointPath !== '/' && localEndpointPath !== '') {
    paths.push(`${PROTECTED_RESOURCE_WELL_KNOWN}${localEndpointPath.startsWith('/') ? '' : '/'}${localEndpointPath}`);
  }
  return [...new Set(paths)];
}

/** The Protected Resource Metadata document (RFC 9728 §2) of this server. */
export function protectedResourceMetadata(auth: McpAuthOptions, serverName: string): Record<string, unknown> {
  const document: Record<string, unknown> = {
    resource: auth.resource,
    authorization_servers: [...auth.authorizationServers],
    bearer_methods_supported: ['header'],
    resource_name: auth.resourceName ?? serverName,
  };
  if (auth.scopesSupported && auth.scopesSupported.length > 0) document.scopes_supported = [...auth.scopesSupported];
  if (auth.resourceDocumentation !== undefined) document.resource_documentation = auth.resourceDocumentation;
  return document;
}
