import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import type { McpStoredSkill } from '../../backend/mcp-skill.store.js';
import type { Skill, SkillFile } from './skill-catalog.js';
import { baseName, manifestOf, SKILL_MANIFEST, skillFileOf } from './skill-file.js';

/** The longest skill path, or file path inside a skill, accepted at runtime (in characters). */
export const MAX_RUNTIME_SKILL_PATH = 512;

/**
 * Why `path` cannot be a path of the namespace (a skill's, or a file's inside a skill), or
 * undefined when it can: segments separated by `/`, none empty, `.` or `..` (nothing may leave
 * the skill's folder), none starting with a dot (the folder loader leaves those out too), no
 * backslash or control character (a host writes the files to disk under these names).
 */
export function namespacePathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.length === 0) return 'is not a non-empty string';
  if (path.length > MAX_RUNTIME_SKILL_PATH) return `is longer than ${MAX_RUNTIME_SKILL_PATH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(path)) return 'holds a backslash or a control character';
  if (path.split('/').some((segment) => segment === '' || segment.startsWith('.'))) {
    return "has an empty segment, or one starting with a dot ('.', '..', '.hidden')";
  }
  return undefined;
}

/** Limits a runtime skill is checked against (the `skills` options). */
export interface RuntimeSkillLimits {
  readonly maxFilesPerSkill: number;
  readonly maxBytesPerSkill: number;
}

/**
 * A skill registered at runtime, checked as a skill folder is at startup: a valid path, file
 * paths that stay inside the skill, each once, a `SKILL.md` at its top whose frontmatter is
 * valid and names the skill after its last path segment, no other `SKILL.md` (a skill inside it
 * is registered on its own), and the per-skill limits. Each problem is an `McpDefinitionError`
 * naming `where` and the file.
 */
export function buildRuntimeSkill(stored: McpStoredSkill, limits: RuntimeSkillLimits, where: string): Skill {
  const pathProblem = namespacePathProblem(stored.path);
  if (pathProblem) throw new McpDefinitionError(`${where}: the skill path ${pathProblem}`);
  const seen = new Set<string>();
  let bytes = 0;
  for (const file of stored.files) {
    const problem = namespacePathProblem(file.path);
    if (problem) throw new McpDefinitionError(`${where}: the file path '${String(file.path)}' ${problem}`);
    if (seen.has(file.path)) throw new McpDefinitionError(`${where}: the file '${file.path}' is given twice`);
    if (!(file.bytes instanceof Uint8Array)) {
      throw new McpDefinitionError(`${where}: the file '${file.path}' has no content (a string or bytes)`);
    }
    if (file.path !== SKILL_MANIFEST && baseName(file.path) === SKILL_MANIFEST) {
      throw new McpDefinitionError(
        `${where}: the file '${file.path}' is another skill's ${SKILL_MANIFEST}: register a skill inside it on its own`,
      );
    }
    seen.add(file.path);
    bytes += file.bytes.length;
  }
  if (stored.files.length > limits.maxFilesPerSkill) {
    throw new McpDefinitionError(
      `${where}: the skill has ${stored.files.length} files, more than skills.maxFilesPerSkill (${limits.maxFilesPerSkill})`,
    );
  }
  if (bytes > limits.maxBytesPerSkill) {
    throw new McpDefinitionError(
      `${where}: the skill holds ${bytes} bytes, more than skills.maxBytesPerSkill (${limits.maxBytesPerSkill})`,
    );
  }
  const manifestInput = stored.files.find((file) => file.path === SKILL_MANIFEST);
  if (!manifestInput) throw new McpDefinitionError(`${where}: a skill has a ${SKILL_MANIFEST} at its top`);
  const manifest = manifestOf(stored.path, `${where} ${SKILL_MANIFEST}`, manifestInput.bytes);
  const others: SkillFile[] = stored.files
    .filter((file) => file !== manifestInput)
    .map((file) => skillFileOf(`${stored.path}/${file.path}`, `${where} ${file.path}`, file.bytes))
    .sort((a, b) => (a.uri < b.uri ? -1 : 1));
  return { uri: manifest.uri, frontmatter: manifest.frontmatter!, files: [manifest, ...others] };
}

/** The folder URI of a skill (`skill://acme/billing`), from the URI of its `SKILL.md`. */
export const skillFolderOf = (skill: Skill): string => skill.uri.slice(0, -`/${SKILL_MANIFEST}`.length);

/** Whether two skill folders (`skill://a`, `skill://a/b`) are the same or one holds the other. */
export const foldersOverlap = (a: string, b: string): boolean =>
  a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
