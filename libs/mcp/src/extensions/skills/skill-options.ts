import { isScopeToken } from '../../auth/scopes.js';
import type { McpSkillsOptions } from '../../interfaces/mcp-module-options.interface.js';
import { isObject } from '../../model/is-object.js';

/**
 * The per-skill limits of the skills extension: hosts must accept a skill up to them, and a
 * server should serve none above them.
 */
export const SKILL_LIMIT_DEFAULTS = { maxFilesPerSkill: 512, maxBytesPerSkill: 16_777_216 } as const;

/** Skills application code may register at runtime by default (`skills.maxRuntimeSkills`). */
export const DEFAULT_MAX_RUNTIME_SKILLS = 100;

/** The problems of the `skills` options, as messages (the group's shape is checked with the others). */
export function skillOptionProblems(skills: McpSkillsOptions | undefined): string[] {
  if (skills === undefined || typeof skills !== 'object' || skills === null) return [];
  const problems: string[] = [];
  const { directories, directoryRead, watch } = skills;
  if (
    directories !== undefined &&
    (!Array.isArray(directories) ||
      directories.length === 0 ||
      directories.some((dir) => typeof dir !== 'string' || dir.length === 0))
  ) {
    problems.push("McpModule option 'skills.directories' must be a non-empty list of folder paths");
  }
  if (watch === true && directories === undefined) {
    problems.push("McpModule option 'skills.watch' watches 'skills.directories', and none is given");
  }
  if (directoryRead !== undefined && typeof directoryRead !== 'boolean') {
    problems.push(`McpModule option 'skills.directoryRead' must be a boolean, got ${String(directoryRead)}`);
  }
  if (watch !== undefined && typeof watch !== 'boolean') {
    problems.push(`McpModule option 'skills.watch' must be a boolean, got ${String(watch)}`);
  }
  for (const name of ['maxFilesPerSkill', 'maxBytesPerSkill', 'maxRuntimeSkills'] as const) {
    const value = skills[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      problems.push(`McpModule option 'skills.${name}' must be a positive integer, got ${String(value)}`);
    }
  }
  problems.push(...requiredScopesProblems(skills.requiredScopes));
  return problems;
}

/** `requiredScopes`: a mapping from skill paths to non-empty lists of scope tokens. */
function requiredScopesProblems(requiredScopes: unknown): string[] {
  if (requiredScopes === undefined) return [];
  if (!isObject(requiredScopes)) {
    return ["McpModule option 'skills.requiredScopes' must map skill paths to lists of scopes"];
  }
  return Object.entries(requiredScopes)
    .filter(([, scopes]) => !Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isScopeToken))
    .map(
      ([path]) =>
        `McpModule option 'skills.requiredScopes' of '${path}' must be a non-empty list of scopes ` +
        '(non-empty strings without spaces)',
    );
}

/** The skills options with their defaults; undefined when no skills are configured. */
export function resolveSkillOptions(skills: McpSkillsOptions | undefined): Required<McpSkillsOptions> | undefined {
  if (skills === undefined) return undefined;
  return {
    directories: [...(skills.directories ?? [])],
    directoryRead: skills.directoryRead ?? true,
    maxFilesPerSkill: skills.maxFilesPerSkill ?? SKILL_LIMIT_DEFAULTS.maxFilesPerSkill,
    maxBytesPerSkill: skills.maxBytesPerSkill ?? SKILL_LIMIT_DEFAULTS.maxBytesPerSkill,
    requiredScopes: { ...skills.requiredScopes },
    watch: skills.watch ?? false,
    maxRuntimeSkills: skills.maxRuntimeSkills ?? DEFAULT_MAX_RUNTIME_SKILLS,
  };
}
