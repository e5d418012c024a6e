/**
 * The TypeScript blocks of the README, in order, with where they stand: the line of their first
 * code line, the `##` section they belong to, and the file they say they are (a first line
 * such as `// app.module.ts`), if any.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const README_PATH = fileURLToPath(new URL('../../README.md', import.meta.url));

export interface Snippet {
  /** The README line of the block's first code line (1-based). */
  line: number;
  /** The `##` heading above the block. */
  section: string;
  /** The file name the block's first line gives (`// weather.tools.ts`), if any. */
  file?: string;
  code: string;
}

const FENCE = /^```(\w*)\s*$/;
const FILE_COMMENT = /^\/\/ ([\w.-]+\.ts)$/;

/** Every ```ts block of `markdown`. */
export function extractSnippets(markdown: string = readFileSync(README_PATH, 'utf8')): Snippet[] {
  const snippets: Snippet[] = [];
  const lines = markdown.split('\n');
  let section = '';
  for (let index = 0; index < lines.length; index++) {
    const heading = /^## (.+)$/.exec(lines[index]);
    if (heading) section = heading[1].trim();
    const fence = FENCE.exec(lines[index]);
    if (!fence) continue;
    const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
    if (end === -1) throw new Error(`README.md:${index + 1}: a code block is never closed`);
    if (fence[1] === 'ts' || fence[1] === 'typescript') {
      const code = lines.slice(index + 1, end).join('\n');
      snippets.push({ line: index + 2, section, file: FILE_COMMENT.exec(lines[index + 1])?.[1], code });
    }
    index = end;
  }
  return snippets;
}
