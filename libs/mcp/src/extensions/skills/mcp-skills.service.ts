import { Injectable } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import type { McpStoredSkill, McpStoredSkillFile } from '../../backend/mcp-skill.store.js';
import { checkedScopes } from '../../auth/required-scopes.js';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { isObject } from '../../model/is-object.js';
import { assertSkillWithinLimits, SKILL_MANIFEST, skillUriOf } from './skill-file.js';
import { buildRuntimeSkill, namespacePathProblem } from './runtime-skill.js';
import { RuntimeSkills } from './runtime-skills.js';
import { ServedSkills } from './served-skills.js';
import { findFiles } from './skills-folder.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/**
 * A skill's files by their path below the skill's folder: `SKILL.md` (required) and any others
 * (`references/guide.md`), each as text (stored as UTF-8) or as bytes. @publicApi
 */
export type McpSkillFiles = Readonly<Record<string, string | Uint8Array>>;

/** What a skill registered at runtime may have besides its files. @publicApi */
export interface McpSkillRegistration {
  /**
   * Scopes a caller's token needs to see the skill and read its files (resource-server mode), as
   * `skills.requiredScopes` gives a folder skill.
   * @default undefined (any authorized caller)
   */
  requiredScopes?: readonly string[];
}

/**
 * Registers and removes Agent Skills while the application runs (docs/skills.md), beside the
 * skills of `skills.directories`: for skills computed or kept elsewhere (a database, another
 * service). Each is checked as a folder skill is at startup (paths, its `SKILL.md`'s frontmatter
 * and name, `maxFilesPerSkill`, `maxBytesPerSkill`), at most `skills.maxRuntimeSkills` are
 * registered, and each change sends `notifications/resources/list_changed` (and `updated` to
 * the subscribers of each file that changed or went away) to the clients of every era.
 *
 * With a shared backend (`@nest-mcp/redis`) a skill registered on one instance is stored there
 * and served by every instance, and `remove` on any instance removes it everywhere. Skills are
 * data, not code: they outlive the instance that registered them (registering the same path
 * again replaces one, so an application that registers its skills at startup may do so on every
 * instance).
 *
 * Needs the `skills` option (`McpModule.forRoot({ skills: {} })` for runtime skills alone).
 *
 * @example
 * ```ts
 * await this.skills.register('billing/refunds', {
 *   'SKILL.md': '---\nname: refunds\ndescription: How to refund an order.\n---\n# Refunds\n...',
 *   'references/policy.md': policyText,
 * });
 * ```
 * @publicApi
 */
@Injectable()
export class McpSkills {
  constructor(
    @McpOptions('skills') private readonly options: McpOptionGroup<'skills'>,
    private readonly runtime: RuntimeSkills,
    private readonly served: ServedSkills,
  ) {}

  /**
   * Serves the skill at `path` (`refunds`, `billing/refunds`: its `SKILL.md` is then
   * `skill://billing/refunds/SKILL.md`; the frontmatter's `name` is the last segment), or
   * replaces the runtime skill there. Resolves once it is stored and served on this instance.
   * @throws McpDefinitionError (rejects) for a skill that breaks a rule (naming the file), one at,
   * inside or around a skill of the folders or another runtime skill's path, or when
   * `skills.maxRuntimeSkills` are registered; `McpBackendUnavailableError` when the backend
   * cannot be reached (nothing is changed).
   */
  async register(path: string, files: McpSkillFiles, options: McpSkillRegistration = {}): Promise<void> {
    const where = `McpSkills.register('${String(path).slice(0, 100)}')`;
    if (!isObject(files)) throw new McpDefinitionError(`${where}: the files are an object of contents by path`);
    const encoder = new TextEncoder();
    const stored: McpStoredSkillFile[] = Object.entries(files).map(([filePath, content]) => ({
      path: filePath,
      bytes: typeof content === 'string' ? encoder.encode(content) : content,
    }));
    await this.store(path, stored, options, where);
  }

  /**
   * Serves the folder `folder` (which holds a `SKILL.md` at its top) as the skill at `path`:
   * every file below it, read now and checked as the folders of `skills.directories` are (no link
   * out of the folder, names starting with a dot left out). A later change of the folder is not
   * followed: register it again.
   * @throws as `register`, and McpDefinitionError for a folder that does not exist.
   */
  async registerFolder(path: string, folder: string, options: McpSkillRegistration = {}): Promise<void> {
    const where = `McpSkills.registerFolder('${String(path).slice(0, 100)}', '${folder}')`;
    this.assertEnabled(where);
    const found = await findFiles(folder);
    const limits = this.options.skills!;
    // The limits first, on the sizes found: a folder far over them is not read.
    assertSkillWithinLimits(
      folder,
      found.length,
      found.reduce((total, file) => total + file.size, 0),
      limits,
    );
    if (!found.some((file) => file.path === SKILL_MANIFEST)) {
      throw new McpDefinitionError(`${where}: the folder has no ${SKILL_MANIFEST} at its top`);
    }
    const stored: McpStoredSkillFile[] = [];
    for (const file of found) stored.push({ path: file.path, bytes: await readFile(file.absolute) });
    await this.store(path, stored, options, where);
  }

  /**
   * Stops serving the runtime skill at `path`, on every instance. Its files' subscribers get
   * `notifications/resources/updated` (a read then answers `-32002`).
   * @returns false when no runtime skill was registered there.
   */
  async remove(path: string): Promise<boolean> {
    this.assertEnabled(`McpSkills.remove('${String(path).slice(0, 100)}')`);
    return this.runtime.remove(path);
  }

  /** The paths of the runtime skills this instance serves (those of every instance, with a shared backend). */
  paths(): string[] {
    return [...this.runtime.skills().keys()].sort();
  }

  private async store(
    path: string,
    files: McpStoredSkillFile[],
    options: McpSkillRegistration,
    where: string,
  ): Promise<void> {
    this.assertEnabled(where);
    const pathProblem = namespacePathProblem(path);
    if (pathProblem) throw new McpDefinitionError(`${where}: the skill path ${pathProblem}`);
    const requiredScopes = checkedScopes(options.requiredScopes, where);
    const stored: McpStoredSkill = { path, files, ...(requiredScopes ? { requiredScopes } : {}) };
    const skill = buildRuntimeSkill(stored, this.options.skills!, where);
    const folder = skillUriOf(path);
    await this.runtime.put(stored, skill, () => {
      const clash = this.served.clashOf(folder);
      if (clash) {
        throw new McpDefinitionError(
          `${where}: ${folder} overlaps the skill at ${clash} (a skill may not be at, inside or around another's path)`,
        );
      }
    });
  }

  private assertEnabled(where: string): void {
    if (!this.options.skills) {
      throw new McpDefinitionError(
        `${where}: the skills extension is off; set the 'skills' option (McpModule.forRoot({ skills: {} }))`,
      );
    }
  }
}
