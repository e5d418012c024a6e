import type { McpSkillStore, McpStoredSkill, McpVersionedSkill } from '../mcp-skill.store.js';

/**
 * Skills registered at runtime, in this process (one instance). Each is kept as given, with its
 * own copy of every file's bytes, so the caller may reuse its buffers. @publicApi
 */
export class InMemorySkillStore implements McpSkillStore {
  private readonly skills = new Map<string, McpVersionedSkill>();
  private lastVersion = 0;

  put(skill: McpStoredSkill, maxSkills: number): Promise<number | undefined> {
    if (!this.skills.has(skill.path) && this.skills.size >= maxSkills) return Promise.resolve(undefined);
    const version = ++this.lastVersion;
    this.skills.set(skill.path, { ...copyOf(skill), version });
    return Promise.resolve(version);
  }

  remove(path: string): Promise<boolean> {
    return Promise.resolve(this.skills.delete(path));
  }

  versions(): Promise<Map<string, number>> {
    return Promise.resolve(new Map([...this.skills].map(([path, skill]) => [path, skill.version])));
  }

  get(paths: readonly string[]): Promise<(McpVersionedSkill | undefined)[]> {
    return Promise.resolve(paths.map((path) => this.skills.get(path)));
  }
}

const copyOf = (skill: McpStoredSkill): McpStoredSkill => ({
  path: skill.path,
  files: skill.files.map((file) => ({ path: file.path, bytes: Uint8Array.from(file.bytes) })),
  ...(skill.requiredScopes ? { requiredScopes: [...skill.requiredScopes] } : {}),
});
