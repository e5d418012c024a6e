import { KeyedCollection, type Page } from '../../registry/keyed-collection.js';
import type { SkillFrontmatter } from './skill-frontmatter.js';
import { DIRECTORY_MIME_TYPE } from './skill-media-type.js';

/** The scheme every skill file is served under. */
export const SKILL_SCHEME = 'skill://';

/** One file of the skills namespace, read once at startup. */
export interface SkillFile {
  readonly uri: string;
  /** Where it was read from, for messages. */
  readonly source: string;
  readonly bytes: Uint8Array;
  /** `sha256:` and the 64 lowercase hex digits of the bytes' SHA-256. */
  readonly digest: string;
  readonly mimeType: string;
  /** The bytes as text when they are UTF-8 (served as `text`, else as a `blob`). */
  readonly text?: string;
  /** Its `resources/list` (and `resources/directory/read`) item. */
  readonly descriptor: Readonly<Record<string, unknown>>;
  /** The `SKILL.md` of a skill (listed in `resources/list`); other files are readable only. */
  readonly manifest: boolean;
  /** A `SKILL.md`'s frontmatter. */
  readonly frontmatter?: SkillFrontmatter;
}

/** A skill: its `SKILL.md` URI, its frontmatter and every file below its folder. */
export interface Skill {
  readonly uri: string;
  readonly frontmatter: SkillFrontmatter;
  /** Its `SKILL.md` first, then the others by URI; nested skills' files included. */
  readonly files: readonly SkillFile[];
}

/** Whether a caller whose token is checked against `required` may use what needs them. */
export type SkillScopeCheck = (required: readonly string[] | undefined) => boolean;

/** A direct child of a directory of the namespace. */
interface Child {
  readonly uri: string;
  readonly descriptor: Readonly<Record<string, unknown>>;
}

/**
 * The skills a server publishes, and the namespace of their files: skills by the URI of their
 * `SKILL.md`, files by URI, and every directory (`skill://notes`, `skill://notes/references`,
 * and the prefixes above nested paths) with its direct children, and the scopes each needs.
 * Never changes: a change of the skills builds another catalog.
 */
export class SkillCatalog {
  private readonly skills = new KeyedCollection<Skill>();
  private readonly directories = new Map<string, KeyedCollection<Child>>();
  /** Each skill's folder (`skill://notes`) and the scopes `skills.requiredScopes` gives it. */
  private readonly scopedFolders: [folder: string, scopes: readonly string[]][];

  /**
   * @param requiredScopes scopes by skill folder URI (`skill://acme/billing`), for skills that
   * need some.
   */
  constructor(skills: readonly Skill[], requiredScopes: ReadonlyMap<string, readonly string[]> = new Map()) {
    this.scopedFolders = [...requiredScopes];
    for (const skill of skills) {
      this.skills.set(skill.uri, skill);
      for (const file of skill.files) this.addFile(file);
    }
  }

  get size(): number {
    return this.skills.size;
  }

  /** Every skill, by URI. */
  all(): Skill[] {
    return [...this.skills.values()];
  }

  /** The scopes given to skill folders (`skill://notes` → scopes), as the catalog was built with them. */
  scopes(): ReadonlyMap<string, readonly string[]> {
    return new Map(this.scopedFolders);
  }

  /** Every file once (a nested skill's files belong to the skill around it too). */
  files(): SkillFile[] {
    const files = new Map<string, SkillFile>();
    for (const skill of this.skills.values()) for (const file of skill.files) files.set(file.uri, file);
    return [...files.values()];
  }

  skill(uri: string): Skill | undefined {
    return this.skills.get(uri);
  }

  /**
   * The scopes a caller needs to use a skill file or folder at `uri` (or a skill, by the URI of
   * its `SKILL.md`): those of the skill it belongs to and of every skill around that one, each
   * once; undefined when none needs any.
   */
  requiredScopesAt(uri: string): readonly string[] | undefined {
    const scopes = new Set<string>();
    for (const [folder, required] of this.scopedFolders) {
      if (uri === folder || uri.startsWith(`${folder}/`)) for (const scope of required) scopes.add(scope);
    }
    return scopes.size > 0 ? [...scopes] : undefined;
  }

  /**
   * A page of the skills `allows` lets the caller see, by URI: a skill is one item, never split.
   * Throws `-32602` on a bad cursor.
   */
  page(cursor: unknown, pageSize: number, allows?: SkillScopeCheck): Page<Skill> {
    return this.skills.page(cursor, pageSize, allows && ((skill) => allows(this.requiredScopesAt(skill.uri))));
  }

  /** Whether `uri` is a folder of the namespace (a skill's, one inside a skill, or a prefix). */
  isDirectory(uri: string): boolean {
    return this.directories.has(uri);
  }

  /**
   * Whether a folder is inside a skill (or is one), so that using it needs the skill's scopes;
   * a prefix folder above skills (`skill://acme`) belongs to none.
   */
  isInSkill(uri: string): boolean {
    for (const skill of this.skills.values()) {
      const folder = skill.uri.slice(0, -'/SKILL.md'.length);
      if (uri === folder || uri.startsWith(`${folder}/`)) return true;
    }
    return false;
  }

  /**
   * A page of a directory's direct children that `allows` lets the caller see, or undefined when
   * `uri` is no directory. A prefix folder is shown while some skill below it is.
   */
  directory(uri: string, cursor: unknown, pageSize: number, allows?: SkillScopeCheck): Page<Child> | undefined {
    const visible = allows && ((child: Child) => this.visible(child.uri, allows));
    return this.directories.get(uri)?.page(cursor, pageSize, visible);
  }

  private visible(uri: string, allows: SkillScopeCheck): boolean {
    if (!this.directories.has(uri) || this.isInSkill(uri)) return allows(this.requiredScopesAt(uri));
    return [...this.skills.values()].some(
      (skill) => skill.uri.startsWith(`${uri}/`) && allows(this.requiredScopesAt(skill.uri)),
    );
  }

  /** Files the file under each directory above it, and each directory under its parent. */
  private addFile(file: SkillFile): void {
    const segments = file.uri.slice(SKILL_SCHEME.length).split('/');
    for (let depth = 1; depth < segments.length; depth++) {
      const dirUri = SKILL_SCHEME + segments.slice(0, depth).join('/');
      let children = this.directories.get(dirUri);
      if (!children) this.directories.set(dirUri, (children = new KeyedCollection<Child>()));
      const childUri = `${dirUri}/${segments[depth]}`;
      if (children.has(childUri)) continue;
      const isFile = depth === segments.length - 1;
      children.set(childUri, {
        uri: childUri,
        descriptor: isFile
          ? file.descriptor
          : { uri: childUri, name: decodeURIComponent(segments[depth]), mimeType: DIRECTORY_MIME_TYPE },
      });
    }
  }
}
