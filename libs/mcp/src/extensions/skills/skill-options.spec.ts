import { describe, expect, it } from '@jest/globals';
import { resolveMcpOptions, validateMcpOptions } from '../../mcp-options.resolver.js';
import type { McpSkillsOptions } from '../../interfaces/mcp-module-options.interface.js';

const serverInfo = { name: 'skills', version: '1.0.0' };
const problemsOf = (skills: unknown) => validateMcpOptions({ serverInfo, skills: skills as McpSkillsOptions });

describe('the skills options', () => {
  it('default to directory reads, the limits of the extension and 100 runtime skills; no folder is needed', () => {
    expect(resolveMcpOptions({ serverInfo, skills: { directories: ['skills'] } }).skills).toEqual({
      directories: ['skills'],
      directoryRead: true,
      maxFilesPerSkill: 512,
      maxBytesPerSkill: 16_777_216,
      requiredScopes: {},
      watch: false,
      maxRuntimeSkills: 100,
    });
    expect(resolveMcpOptions({ serverInfo, skills: {} }).skills?.directories).toEqual([]);
    expect(resolveMcpOptions({ serverInfo }).skills).toBeUndefined();
  });

  it.each([
    [{ directories: [] }, "'skills.directories' must be a non-empty list"],
    [{ directories: [''] }, "'skills.directories' must be a non-empty list"],
    [{ watch: true }, "'skills.watch' watches 'skills.directories', and none is given"],
    [{ maxRuntimeSkills: -1 }, "'skills.maxRuntimeSkills' must be a positive integer"],
    [{ directories: ['s'], directoryRead: 'yes' }, "'skills.directoryRead' must be a boolean"],
    [{ directories: ['s'], maxFilesPerSkill: 0 }, "'skills.maxFilesPerSkill' must be a positive integer"],
    [{ directories: ['s'], maxBytesPerSkill: 1.5 }, "'skills.maxBytesPerSkill' must be a positive integer"],
    [{ directories: ['s'], directory: 's' }, "'skills.directory' is unknown"],
    [{ directories: ['s'], watch: 'yes' }, "'skills.watch' must be a boolean"],
    [{ directories: ['s'], requiredScopes: ['notes'] }, "'skills.requiredScopes' must map skill paths to lists"],
    [{ directories: ['s'], requiredScopes: { notes: [] } }, "'skills.requiredScopes' of 'notes' must be a non-empty"],
    [
      { directories: ['s'], requiredScopes: { notes: ['a b'] } },
      "'skills.requiredScopes' of 'notes' must be a non-empty",
    ],
    ['skills', "option 'skills' must be an object"],
  ])('refuses %p at startup', (skills, message) => {
    expect(problemsOf(skills).join('\n')).toContain(message);
  });
});
