import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { McpLogger } from '../../logging/mcp-logger.js';
import { ListChangedCoalescer } from '../../notifications/list-changed.coalescer.js';
import { ResourceNotificationService } from '../../notifications/resource-notification.service.js';
import { McpResourceRegistry } from '../../registry/mcp-resource.registry.js';
import { SkillCatalog } from './skill-catalog.js';
import { loadSkillCatalog } from './skill-catalog.loader.js';
import { SkillsFolderWatcher } from './skills-folder.watcher.js';
import { foldersOverlap, skillFolderOf } from './runtime-skill.js';
import { RuntimeSkills } from './runtime-skills.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/**
 * The skills this instance serves, and their life: loaded from their folders once, when the
 * module starts (a problem fails the start); each file a resource (each `SKILL.md` listed in
 * `resources/list`, the other files readable only); with `watch`, a change in the folders loads
 * them again (all checks again; a failed reload keeps the previous ones) and announces it with
 * `notifications/resources/list_changed`.
 *
 * Skills registered at runtime (`McpSkills`, `RuntimeSkills`) are served beside the folders'
 * ones: each change of either builds the catalog again and swaps it in the same way. A runtime
 * skill at, inside or around a folder skill's path is refused when registered; one another
 * instance stored (whose folders may differ) is left out, with a warning.
 *
 * `SkillsHandler` answers the extension's methods from `catalog`.
 */
@Injectable()
export class ServedSkills implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new McpLogger('McpSkills');
  /** What is served: the folders' skills and the runtime ones; undefined until loaded. */
  catalog?: SkillCatalog;
  /** The folders' skills alone, as last loaded. */
  private folders?: SkillCatalog;
  private watcher?: SkillsFolderWatcher;

  constructor(
    @McpOptions('skills') private readonly options: McpOptionGroup<'skills'>,
    private readonly resources: McpResourceRegistry,
    private readonly coalescer: ListChangedCoalescer,
    private readonly notifications: ResourceNotificationService,
    private readonly runtime: RuntimeSkills,
  ) {}

  async onModuleInit(): Promise<void> {
    const options = this.options.skills;
    if (!options) return;
    const catalog = await loadSkillCatalog(options);
    // Skill files are resources: `resources/*` answers while none is served yet (or any more).
    this.resources.markInUse();
    this.registerFiles(catalog);
    this.catalog = this.folders = catalog;
    this.runtime.onChange(() => this.runtimeChanged());
    // Skills registered before the folders were loaded (another module's onModuleInit) are served now.
    if (this.runtime.skills().size > 0) this.runtimeChanged();
    if (options.watch) {
      this.watcher = new SkillsFolderWatcher(
        () => this.reload(),
        (folder, error) => this.logger.error(`Skills folder '${folder}' is no longer watched: ${error.message}`),
      );
      this.watcher.watch(options.directories);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.watcher?.close();
  }

  /**
   * Each file of `catalog` as a resource (each `SKILL.md` listed, the others readable only); all
   * or none: when a URI is taken, the files registered so far are removed again and it throws.
   */
  private registerFiles(catalog: SkillCatalog): void {
    const registered: string[] = [];
    try {
      for (const file of catalog.files()) {
        this.resources.register({
          uri: file.uri,
          descriptor: file.descriptor,
          mimeType: file.mimeType,
          handler: async () => file.text ?? file.bytes,
          source: `the skill file ${file.source}`,
          unlisted: !file.manifest,
          requiredScopes: catalog.requiredScopesAt(file.uri),
        });
        registered.push(file.uri);
      }
    } catch (error) {
      for (const uri of registered) this.resources.unregister(uri);
      throw error;
    }
  }

  private unregisterFiles(catalog: SkillCatalog): void {
    for (const file of catalog.files()) this.resources.unregister(file.uri);
  }

  /**
   * Loads the skills again (`watch`) and swaps them in at once, between two requests: all or
   * nothing, so a problem (logged, naming the file) leaves the previous skills served. A reload
   * that changed some file announces the new lists, and tells the subscribers of each file that
   * changed or went away. Never rejects.
   */
  private async reload(): Promise<void> {
    const previous = this.folders!;
    try {
      const next = await loadSkillCatalog(this.options.skills!, { reload: true });
      const touched = changedFiles(previous, next);
      if (touched.length === 0 && previous.files().length === next.files().length) return;
      // Synchronous from here on: no request sees a mix of the two catalogs.
      this.swap(this.combined(next));
      this.folders = next;
      this.logger.log(`Skills reloaded: ${next.size} skill(s), ${next.files().length} file(s)`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error(`Skills not reloaded, the previous ones are still served: ${message}`);
    }
  }

  /** The runtime skills changed: serves them with the folders' ones; a failure keeps what is served. */
  private runtimeChanged(): void {
    try {
      this.swap(this.combined(this.folders!));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error(`Runtime skills not served, the previous skills still are: ${message}`);
    }
  }

  /**
   * The folders' skills and the runtime ones as one catalog. A runtime skill whose folder is, or
   * is inside or around, a folder skill's or an earlier runtime skill's (by path) is left out.
   */
  private combined(folders: SkillCatalog): SkillCatalog {
    const skills = folders.all();
    const scopes = new Map(folders.scopes());
    const taken = skills.map(skillFolderOf);
    for (const [path, held] of [...this.runtime.skills()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const folder = skillFolderOf(held.skill);
      const clash = taken.find((other) => foldersOverlap(folder, other));
      if (clash) {
        this.logger.warn(`Runtime skill '${path}' is not served: it overlaps the skill at ${clash}`);
        continue;
      }
      taken.push(folder);
      skills.push(held.skill);
      if (held.requiredScopes?.length) scopes.set(folder, held.requiredScopes);
    }
    return new SkillCatalog(skills, scopes);
  }

  /**
   * Where a runtime skill at `folder` (`skill://acme/billing`) would clash: the folder of a
   * served skill that is, holds or lies inside it (a runtime skill at the same path is replaced,
   * no clash); undefined when none does.
   */
  clashOf(folder: string): string | undefined {
    const own = this.runtime.skills();
    return this.catalog
      ?.all()
      .map(skillFolderOf)
      .find((other) => foldersOverlap(folder, other) && !(other === folder && own.has(decodedPathOf(other))));
  }

  /**
   * Serves `next` in place of what is served, at once (synchronous: no request sees a mix of
   * the two): its files as resources, a `list_changed` for the lists, and `updated` to the
   * subscribers of each file that changed or went away. All or nothing: when a file cannot be
   * registered, what was served is served again and it throws.
   */
  private swap(next: SkillCatalog): void {
    const previous = this.catalog!;
    const touched = changedFiles(previous, next);
    this.unregisterFiles(previous);
    try {
      this.registerFiles(next);
    } catch (error) {
      this.registerFiles(previous);
      throw error;
    }
    this.catalog = next;
    this.coalescer.schedule('resources');
    for (const uri of touched) {
      this.notifications.notifyResourceUpdated(uri).catch((error: unknown) => {
        this.logger.warn(`Could not tell the subscribers of ${uri} that it changed: ${String(error)}`);
      });
    }
  }
}

/** The path of a skill folder below `skill://`, as `McpSkills` names it (`acme/billing`). */
const decodedPathOf = (folder: string): string =>
  folder.slice('skill://'.length).split('/').map(decodeURIComponent).join('/');

/** URIs of the files of `previous` that `next` changed (another digest) or no longer has. */
function changedFiles(previous: SkillCatalog, next: SkillCatalog): string[] {
  const digests = new Map(next.files().map((file) => [file.uri, file.digest]));
  return previous
    .files()
    .filter((file) => digests.get(file.uri) !== file.digest)
    .map((file) => file.uri);
}
