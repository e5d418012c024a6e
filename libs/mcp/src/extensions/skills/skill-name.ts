/**
 * The Agent Skills naming rule: 1 to 64 lowercase letters, digits and hyphens, neither starting
 * nor ending with a hyphen, and no two hyphens in a row.
 */
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Why `name` cannot name a skill, or undefined when it can. */
export function skillNameProblem(name: string): string | undefined {
  if (SKILL_NAME.test(name)) return undefined;
  return (
    `name '${name.slice(0, 100)}' breaks the Agent Skills naming rules (1-64 lowercase letters, digits and ` +
    'hyphens, no leading, trailing or double hyphen)'
  );
}
