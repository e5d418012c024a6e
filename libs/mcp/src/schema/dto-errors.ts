import type { ValidationError } from 'class-validator';

/** How class-validator's default messages put the property name: first, or after one of these. */
const MESSAGE_PREFIXES = ['', 'each value in ', 'property ', 'nested property '];

/** `message` with its leaf `property` name replaced by the full `path` (`author.name must be ...`). */
function withPath(message: string, property: string, path: string): string {
  if (path === property) return message;
  for (const prefix of MESSAGE_PREFIXES) {
    const head = `${prefix}${property}`;
    if (message.startsWith(`${head} `) || message === head) return `${prefix}${path}${message.slice(head.length)}`;
  }
  return `${path}: ${message}`;
}

/**
 * Flattens class-validator's error tree into readable messages that name the full path of each
 * failing property (`author.name must be a string`, `tags.1.label must be a string`).
 */
export function formatValidationErrors(errors: readonly ValidationError[], parentPath = ''): string[] {
  return errors.flatMap((error) => {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    // A property the client left out fails every constraint on it ("a must be a number
    // conforming to the specified constraints"); what it needs to hear is that it is missing.
    // JSON has no `undefined`, so an undefined value is always a missing property (optional
    // ones are skipped by class-validator before they get here).
    if (error.value === undefined && error.constraints) return [`${path} is required`];
    const own = Object.values(error.constraints ?? {}).map((message) => withPath(message, error.property, path));
    return [...own, ...formatValidationErrors(error.children ?? [], path)];
  });
}

/** The paths of the properties class-validator reported (`author.name`, `tags.1.label`). */
export function reportedPaths(errors: readonly ValidationError[], parentPath = ''): Set<string> {
  const paths = new Set<string>();
  for (const error of errors) {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    paths.add(path);
    for (const child of reportedPaths(error.children ?? [], path)) paths.add(child);
  }
  return paths;
}
