import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { RequireScopes } from './require-scopes.decorator.js';
import { requiredScopesOf } from './required-scopes.js';

@RequireScopes('notes:read')
class Notes {
  @RequireScopes('notes:write', 'notes:read')
  write() {}

  read() {}
}

class Open {
  free() {}
}

class Broken {
  @RequireScopes('notes read')
  bad() {}
}

describe('@RequireScopes', () => {
  it('adds the method scopes to the class scopes, each once', () => {
    expect(requiredScopesOf(Notes, Notes.prototype.write, 'Notes.write')).toEqual(['notes:read', 'notes:write']);
    expect(requiredScopesOf(Notes, Notes.prototype.read, 'Notes.read')).toEqual(['notes:read']);
  });

  it('is undefined where nothing is required', () => {
    expect(requiredScopesOf(Open, Open.prototype.free, 'Open.free')).toBeUndefined();
  });

  it('fails startup on a scope that is not a scope token, naming the method', () => {
    expect(() => requiredScopesOf(Broken, Broken.prototype.bad, 'Broken.bad')).toThrow(McpDefinitionError);
    expect(() => requiredScopesOf(Broken, Broken.prototype.bad, 'Broken.bad')).toThrow(/Broken\.bad/);
  });
});
