/** One file of a skill registered at runtime, by its path below the skill's folder. @publicApi */
export interface McpStoredSkillFile {
  /** `SKILL.md`, `references/guide.md`: segments separated by `/`, never `.` or `..`. */
  readonly path: string;
  readonly bytes: Uint8Array;
}

/**
 * A skill registered at runtime (`McpSkills.register`) as a store keeps it: checked before it is
 * stored, so a store holds only valid skills. Plain data: any store can hold it. @publicApi
 */
export interface McpStoredSkill {
  /** The skill's path in the namespace (`notes`, `acme/billing`): its `SKILL.md` is `skill://<path>/SKILL.md`. */
  readonly path: string;
  /** Its files, `SKILL.md` among them. */
  readonly files: readonly McpStoredSkillFile[];
  /** Scopes a caller's token needs to see and read it. */
  readonly requiredScopes?: readonly string[];
}

/** A stored skill and the version the store gave it when it was put. @publicApi */
export interface McpVersionedSkill extends McpStoredSkill {
  /**
   * Given by the store at each `put`, greater than every version it gave before (on every
   * instance): a skill put again has a new one, so an instance tells what it holds from what
   * changed by comparing versions.
   */
  readonly version: number;
}

/**
 * The skills registered at runtime (docs/skills.md), shared by every instance: a backend seam
 * (see `McpBackend`). Every instance serves every stored skill; the one that changed the store
 * tells the others (`McpInstanceMessaging`), which then read what changed (`versions`, then
 * `get` of the skills whose version differs), so a change moves the bytes of that skill only.
 *
 * The in-memory backend keeps them in the process; the Redis backend in Redis, where they
 * outlive the instances (they are data, not code: an instance that starts serves them at once).
 * Each call is one round trip; a store that cannot be reached rejects with
 * `McpBackendUnavailableError`.
 * @publicApi
 */
export interface McpSkillStore {
  /**
   * Stores a skill, or replaces the one at its path, with a new version; refused (`undefined`,
   * nothing stored) when `maxSkills` skills are stored and none is at its path. Atomic: of two
   * instances putting a skill each into the last free place, one is refused.
   */
  put(skill: McpStoredSkill, maxSkills: number): Promise<number | undefined>;
  /** Removes the skill at `path`; false when none was stored there. */
  remove(path: string): Promise<boolean>;
  /** The version of every stored skill, by path (small: no file is read). */
  versions(): Promise<Map<string, number>>;
  /** The skills at `paths`, in that order; `undefined` for a path where none is stored (any more). */
  get(paths: readonly string[]): Promise<(McpVersionedSkill | undefined)[]>;
}
