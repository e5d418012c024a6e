import { readFile } from 'node:fs/promises';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import type { McpSkillsOptions } from '../../interfaces/mcp-module-options.interface.js';
import { SKILL_SCHEME, SkillCatalog, type Skill, type SkillFile } from './skill-catalog.js';
import {
  assertSkillWithinLimits,
  baseName,
  manifestOf,
  SKILL_MANIFEST as MANIFEST,
  skillFileOf,
  skillUriOf as uriOf,
} from './skill-file.js';
import { findFiles, type FoundFile } from './skills-folder.js';

/** A skill's path in the namespace and the folder it came from, to tell two folders' skills apart. */
interface Placed {
  readonly folder: string;
  readonly path: string;
  readonly source: string;
}

/** Reads one file: its bytes, digest and how it is served. */
async function readSkillFile(found: FoundFile): Promise<SkillFile> {
  return skillFileOf(found.path, found.absolute, await readFile(found.absolute));
}

/** Reads a `SKILL.md` and checks it: frontmatter, name rules, the folder named after the skill. */
async function readManifest(found: FoundFile): Promise<SkillFile> {
  return manifestOf(found.path.slice(0, -`/${MANIFEST}`.length), found.absolute, await readFile(found.absolute));
}

/**
 * Loads the skills below every folder of `options.directories` (docs/skills.md): each folder
 * holding a `SKILL.md` is a skill at `skill://<its path>/SKILL.md`; its files are every file
 * below it, nested skills' included. Each file is read, measured and hashed once. Every problem
 * is an `McpDefinitionError` naming the file: a folder that holds no skill, a `SKILL.md` at the
 * top of a folder or with bad frontmatter, a name that breaks the Agent Skills rules or is not
 * its folder's, a link out of the folder, a skill over `maxFilesPerSkill` or `maxBytesPerSkill`,
 * the same skill path in two folders, a `requiredScopes` path that names no skill (at startup;
 * on a `reload` the skill it names may have been removed since).
 */
export async function loadSkillCatalog(
  options: Required<McpSkillsOptions>,
  { reload = false }: { reload?: boolean } = {},
): Promise<SkillCatalog> {
  const skills: Skill[] = [];
  const placed: Placed[] = [];
  for (const folder of options.directories) {
    const found = await findFiles(folder);
    const manifests = found.filter((file) => baseName(file.path) === MANIFEST);
    if (manifests.length === 0) {
      throw new McpDefinitionError(`Skills folder '${folder}' holds no skill (no folder in it has a ${MANIFEST})`);
    }
    // Every manifest first: a nested skill's SKILL.md is listed as a skill's, whichever skill reads it.
    const read = new Map<string, SkillFile>();
    for (const manifest of manifests) {
      if (manifest.path === MANIFEST) {
        throw new McpDefinitionError(
          `Skill file '${manifest.absolute}' is at the top of the skills folder '${folder}': ` +
            'put each skill in a folder named after it',
        );
      }
      read.set(manifest.path, await readManifest(manifest));
    }
    for (const manifest of manifests) {
      const path = manifest.path.slice(0, -`/${MANIFEST}`.length);
      assertNotPlaced(placed, { folder, path, source: manifest.absolute });
      const members = found.filter((file) => file.path.startsWith(`${path}/`));
      assertWithinLimits(manifest, members.length, sizeOf(members), options);
      const files: SkillFile[] = [];
      for (const member of members) {
        let file = read.get(member.path);
        if (!file) read.set(member.path, (file = await readSkillFile(member)));
        files.push(file);
      }
      // What was read, not what was found: a file may have grown in between.
      assertWithinLimits(manifest, files.length, sizeOf(files.map((file) => ({ size: file.bytes.length }))), options);
      const own = read.get(manifest.path)!;
      skills.push({
        uri: own.uri,
        frontmatter: own.frontmatter!,
        files: [own, ...files.filter((file) => file !== own).sort((a, b) => (a.uri < b.uri ? -1 : 1))],
      });
    }
  }
  return new SkillCatalog(skills, scopedFolders(skills, options.requiredScopes, reload));
}

/**
 * `skills.requiredScopes` by skill folder URI. A path that names no skill fails the start: a
 * typo would otherwise leave the skill it meant open to every caller. A reload keeps the scopes
 * of a skill that is gone, so they apply again when it comes back.
 */
function scopedFolders(
  skills: readonly Skill[],
  requiredScopes: Record<string, string[]>,
  reload: boolean,
): Map<string, readonly string[]> {
  const folders = new Map<string, readonly string[]>();
  const known = new Set(skills.map((skill) => skill.uri.slice(0, -`/${MANIFEST}`.length)));
  for (const [path, scopes] of Object.entries(requiredScopes)) {
    const folder = uriOf(path);
    if (!reload && !known.has(folder)) {
      throw new McpDefinitionError(
        `McpModule option 'skills.requiredScopes' names '${path}', which is no skill: use the path of a ` +
          `skill's folder below its skills folder (served: ${[...known].map((uri) => uri.slice(SKILL_SCHEME.length)).join(', ')})`,
      );
    }
    folders.set(folder, [...new Set(scopes)]);
  }
  return folders;
}

const sizeOf = (files: readonly { size: number }[]): number => files.reduce((total, file) => total + file.size, 0);

function assertWithinLimits(
  manifest: FoundFile,
  count: number,
  bytes: number,
  options: Required<McpSkillsOptions>,
): void {
  assertSkillWithinLimits(manifest.absolute, count, bytes, options);
}

/**
 * Two folders may not serve the same skill path, nor one inside the other's: a skill's files
 * would then come from two folders, and its manifest would miss some.
 */
function assertNotPlaced(placed: Placed[], skill: Placed): void {
  const clash = placed.find(
    (other) =>
      other.folder !== skill.folder &&
      (other.path === skill.path || other.path.startsWith(`${skill.path}/`) || skill.path.startsWith(`${other.path}/`)),
  );
  if (clash) {
    throw new McpDefinitionError(
      `Skills '${clash.source}' and '${skill.source}' overlap at ${uriOf(skill.path)}: ` +
        'two skills folders may not serve the same skill path, nor one inside the other',
    );
  }
  placed.push(skill);
}
