import { isDeepStrictEqual } from 'node:util';
import { parse, YAMLParseError } from 'yaml';
import { isObject } from '../../model/is-object.js';
import { skillNameProblem } from './skill-name.js';

/**
 * The frontmatter block at the start of a `SKILL.md`: `---`, the YAML, `---` on a line of its
 * own. A byte order mark before it is allowed. Hosts find it the same way, so what they parse
 * is what was published.
 */
const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The longest `description` the Agent Skills specification allows. */
const MAX_DESCRIPTION_LENGTH = 1024;

/** A skill's frontmatter as it goes on the wire: every field its author wrote. */
export interface SkillFrontmatter {
  readonly name: string;
  readonly description: string;
  readonly [field: string]: unknown;
}

/**
 * The frontmatter of a `SKILL.md` as a JSON object, or the problems that keep it from being a
 * skill's: no frontmatter block, YAML that does not parse, no mapping, a value JSON cannot carry
 * (a host compares the entry's frontmatter with the file's, field by field), a missing or empty
 * `name` or `description`, a name that breaks the Agent Skills rules.
 */
export function parseSkillFrontmatter(text: string): { frontmatter: SkillFrontmatter } | { problem: string } {
  const block = FRONTMATTER.exec(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!block) return { problem: 'does not begin with a YAML frontmatter block between --- lines' };
  let value: unknown;
  try {
    // YAML 1.2 core schema (no timestamps): what hosts parse too. Duplicate keys are an error.
    value = parse(block[1], { uniqueKeys: true, prettyErrors: false });
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message : String(error);
    return { problem: `has frontmatter that is not valid YAML: ${detail.split('\n')[0]}` };
  }
  if (!isObject(value)) return { problem: 'has frontmatter that is not a YAML mapping' };
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(value)) as unknown, value)) {
    return { problem: 'has frontmatter with a value JSON cannot carry (such as .inf, .nan or -0)' };
  }
  const { name, description } = value;
  const missing = (field: string) => ({ problem: `has no '${field}' in its frontmatter` });
  const notText = (field: string) => ({ problem: `has a frontmatter '${field}' that is not a string` });
  if (name === undefined || name === null || name === '') return missing('name');
  if (typeof name !== 'string') return notText('name');
  if (description === undefined || description === null) return missing('description');
  if (typeof description !== 'string') return notText('description');
  if (description.trim() === '') return missing('description');
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return { problem: `has a description of ${description.length} characters, more than ${MAX_DESCRIPTION_LENGTH}` };
  }
  const badName = skillNameProblem(name);
  if (badName) return { problem: `has a frontmatter ${badName}` };
  return { frontmatter: value as SkillFrontmatter };
}
