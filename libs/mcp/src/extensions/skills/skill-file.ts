import { createHash } from 'node:crypto';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { SKILL_SCHEME, type SkillFile } from './skill-catalog.js';
import { parseSkillFrontmatter, type SkillFrontmatter } from './skill-frontmatter.js';
import { skillFileContent } from './skill-media-type.js';

/** The file that makes a folder a skill. */
export const SKILL_MANIFEST = 'SKILL.md';

/** `skill://` and the path, each segment percent-encoded (a space in a file name is `%20`). */
export const skillUriOf = (path: string): string => SKILL_SCHEME + path.split('/').map(encodeURIComponent).join('/');

export const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * One file of the namespace at `path` (below `skill://`) with its bytes: digest, media type and
 * how it is listed. `source` says where it came from, for messages; `frontmatter` makes it a
 * skill's `SKILL.md` (listed, as `text/markdown`, with the skill's name and description).
 */
export function skillFileOf(
  path: string,
  source: string,
  bytes: Uint8Array,
  frontmatter?: SkillFrontmatter,
): SkillFile {
  const uri = skillUriOf(path);
  const { mimeType, text } = skillFileContent(baseName(path), bytes);
  const descriptor: Record<string, unknown> = frontmatter
    ? { uri, name: frontmatter.name, description: frontmatter.description, mimeType: 'text/markdown' }
    : { uri, name: baseName(path), mimeType };
  descriptor.size = bytes.length;
  return {
    uri,
    source,
    bytes,
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    mimeType: frontmatter ? 'text/markdown' : mimeType,
    text,
    descriptor,
    manifest: frontmatter !== undefined,
    frontmatter,
  };
}

/**
 * The `SKILL.md` of the skill at `skillPath` (below `skill://`), checked: UTF-8 text, its
 * frontmatter (`parseSkillFrontmatter`), and the skill's folder named after it. Each problem is
 * an `McpDefinitionError` naming `source`.
 */
export function manifestOf(skillPath: string, source: string, bytes: Uint8Array): SkillFile {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new McpDefinitionError(`Skill file '${source}' is not UTF-8 text`);
  }
  const parsed = parseSkillFrontmatter(text);
  if ('problem' in parsed) throw new McpDefinitionError(`Skill file '${source}' ${parsed.problem}`);
  const { frontmatter } = parsed;
  const folderName = baseName(skillPath);
  if (frontmatter.name !== folderName) {
    throw new McpDefinitionError(
      `Skill file '${source}' names the skill '${frontmatter.name}', but its folder is '${folderName}': ` +
        "a skill's folder is named after it",
    );
  }
  return skillFileOf(`${skillPath}/${SKILL_MANIFEST}`, source, bytes, frontmatter);
}

/** Throws when a skill holds more files or bytes than the options allow; `what` names it. */
export function assertSkillWithinLimits(
  what: string,
  count: number,
  bytes: number,
  limits: { readonly maxFilesPerSkill: number; readonly maxBytesPerSkill: number },
): void {
  if (count > limits.maxFilesPerSkill) {
    throw new McpDefinitionError(
      `Skill '${what}' has ${count} files, more than skills.maxFilesPerSkill (${limits.maxFilesPerSkill})`,
    );
  }
  if (bytes > limits.maxBytesPerSkill) {
    throw new McpDefinitionError(
      `Skill '${what}' holds ${bytes} bytes, more than skills.maxBytesPerSkill (${limits.maxBytesPerSkill})`,
    );
  }
}
