/**
 * The TypeScript blocks of the documentation (README.md, every markdown file under docs/, and the
 * README of each package under libs/), in order, with where they stand: the file and line of their first code line, the heading they
 * belong to, and the file they say they are (a first line such as `// app.module.ts`), if any.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Snippet {
  /** The markdown file, relative to the repository root (`README.md`, `docs/tools.md`). */
  source: string;
  /** The line of the block's first code line in `source` (1-based). */
  line: number;
  /** The nearest `#` or `##` heading above the block. */
  section: string;
  /** The file name the block's first line gives (`// weather.tools.ts`), if any. */
  file?: string;
  code: string;
}

const FENCE = /^```(\w*)\s*$/;
const FILE_COMMENT = /^\/\/ ([\w.-]+\.ts)$/;

/**
 * README.md and every markdown file under docs/ (at any depth), relative to the repository root
 * with `/` separators, README.md first, then the others sorted.
 */
export function documentationFiles(root: string = ROOT): string[] {
  const under = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return under(path);
      return entry.name.endsWith('.md') ? [relative(root, path).split(sep).join('/')] : [];
    });
  return ['README.md', ...under(join(root, 'docs')).sort()];
}

/** Every ```ts block of `markdown`, the text of the file `source`. */
export function extractSnippets(markdown: string, source: string): Snippet[] {
  const snippets: Snippet[] = [];
  const lines = markdown.split('\n');
  let section = '';
  for (let index = 0; index < lines.length; index++) {
    const heading = /^##? (.+)$/.exec(lines[index]);
    if (heading) section = heading[1].trim();
    const fence = FENCE.exec(lines[index]);
    if (!fence) continue;
    const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
    if (end === -1) throw new Error(`${source}:${index + 1}: a code block is never closed`);
    if (fence[1] === 'ts' || fence[1] === 'typescript') {
      const code = lines.slice(index + 1, end).join('\n');
      snippets.push({ source, line: index + 2, section, file: FILE_COMMENT.exec(lines[index + 1])?.[1], code });
    }
    index = end;
  }
  return snippets;
}

/**
 * The README of each package under libs/ (`libs/mcp/README.md`, ...): what npm shows, so it
 * stands alone, without relative links.
 */
export function packageReadmes(root: string = ROOT): string[] {
  return readdirSync(join(root, 'libs'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'libs', entry.name, 'README.md')))
    .map((entry) => `libs/${entry.name}/README.md`)
    .sort();
}

/** Every TypeScript block of the documentation files and the package READMEs, file after file. */
export function extractDocumentationSnippets(root: string = ROOT): Snippet[] {
  return [...documentationFiles(root), ...packageReadmes(root)].flatMap((source) =>
    extractSnippets(readFileSync(join(root, source), 'utf8'), source),
  );
}
