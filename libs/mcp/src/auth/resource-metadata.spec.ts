import { describe, expect, it } from '@jest/globals';
import { protectedResourceMetadata, resourceMetadataPaths, resourceMetadataUrl } from './resource-metadata.js';

describe('Protected Resource Metadata (RFC 9728)', () => {
  it('inserts the well-known suffix between host and path', () => {
    expect(resourceMetadataUrl('https://mcp.example.com/public/mcp')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
    );
    expect(resourceMetadataUrl('http://127.0.0.1:5000/mcp')).toBe(
      'http://127.0.0.1:5000/.well-known/oauth-protected-resource/mcp',
    );
    expect(resourceMetadataUrl('https://mcp.example.com')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    );
  });

  it('is served at the path-aware and the root well-known URIs', () => {
    expect(resourceMetadataPaths('https://mcp.example.com/mcp')).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(resourceMetadataPaths('https://mcp.example.com/')).toEqual(['/.well-known/oauth-protected-resource']);
  });

  it('lists the resource, its authorization servers, header bearer tokens and the scopes', () => {
    expect(
      protectedResourceMetadata(
        {
          resource: 'https://mcp.example.com/mcp',
          authorizationServers: ['https://as.example.com'],
          scopesSupported: ['notes:read'],
          resourceDocumentation: 'https://docs.example.com',
        },
        'notes',
      ),
    ).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://as.example.com'],
      bearer_methods_supported: ['header'],
      resource_name: 'notes',
      scopes_supported: ['notes:read'],
      resource_documentation: 'https://docs.example.com',
    });
  });
});
