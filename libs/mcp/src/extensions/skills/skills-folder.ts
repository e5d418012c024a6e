import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';

/** A regular file found in a skills folder. */
export interface FoundFile {
  /** Its path below the folder, `/`-separated, as written there (a link keeps its own name). */
  readonly path: string;
  /** Where to read it. */
  readonly absolute: string;
  /** Its size when it was found (the limits are checked on it before anything is read). */
  readonly size: number;
}

/** Whether `path` is `root` or lies below it. */
const isWithin = (root: string, path: string): boolean => {
  const below = relative(root, path);
  return below !== '..' && !below.startsWith(`..${sep}`) && !isAbsolute(below);
};

/**
 * Every regular file below `folder`, sorted by path. Names starting with a dot (`.git`,
 * `.DS_Store`) are left out. A symbolic link is followed only when what it points to lies inside
 * the folder (resolved with `realpath`); one that leaves it, one that loops back to a folder it
 * sits in, and anything that is neither a file nor a folder are definition errors naming the path.
 */
export async function findFiles(folder: string): Promise<FoundFile[]> {
  let root: string;
  try {
    root = await realpath(folder);
    if (!(await stat(root)).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new McpDefinitionError(`Skills folder '${folder}' does not exist or is not a folder`);
  }
  const found: FoundFile[] = [];
  const visit = async (dir: string, real: string, path: string, ancestors: readonly string[]) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const absolute = join(dir, entry.name);
      const childPath = path ? `${path}/${entry.name}` : entry.name;
      let info = await lstat(absolute);
      let childReal = join(real, entry.name);
      if (info.isSymbolicLink()) {
        try {
          childReal = await realpath(absolute);
        } catch {
          throw new McpDefinitionError(`Skill file '${absolute}' is a symbolic link to nothing`);
        }
        if (!isWithin(root, childReal)) {
          throw new McpDefinitionError(
            `Skill file '${absolute}' is a symbolic link out of the skills folder '${folder}' (to '${childReal}')`,
          );
        }
        info = await stat(childReal);
      }
      if (info.isDirectory()) {
        if (ancestors.includes(childReal)) {
          throw new McpDefinitionError(`Skill folder '${absolute}' is a symbolic link to a folder it is in (a loop)`);
        }
        await visit(absolute, childReal, childPath, [...ancestors, childReal]);
      } else if (info.isFile()) {
        found.push({ path: childPath, absolute, size: info.size });
      } else {
        throw new McpDefinitionError(`Skill file '${absolute}' is neither a regular file nor a folder`);
      }
    }
  };
  await visit(folder, root, '', [root]);
  return found;
}
