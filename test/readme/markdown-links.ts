/**
 * The links of the documentation that lead nowhere: a relative link to a file that does not
 * exist, or to a heading (`#anchor`) that the target page does not have. Anchors are the ones
 * GitHub gives headings: lower case, punctuation dropped, spaces as `-`, `-1`, `-2` ... for
 * repeats. Links inside code (fenced blocks and `code spans`) are not links.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** A link that leads nowhere, as `<file>:<line>: <target> (<why>)`. */
export type BrokenLink = string;

/** The markdown text outside code: fenced blocks blanked (lines kept), code spans removed. */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  });
}

/** GitHub's anchor of a heading's text. */
export function headingAnchor(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of every heading of a markdown text. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const anchor = headingAnchor(heading[1]);
    const repeats = seen.get(anchor) ?? 0;
    seen.set(anchor, repeats + 1);
    anchors.add(repeats === 0 ? anchor : `${anchor}-${repeats}`);
  }
  return anchors;
}

/** The relative links of a markdown text (no scheme: not `https:`, `mailto:`, ...), with their lines. */
export function relativeLinks(markdown: string): { line: number; target: string }[] {
  return proseLines(markdown).flatMap((line, index) =>
    [...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
      .map(([, target]) => ({ line: index + 1, target }))
      .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target)),
  );
}

/** Every broken relative link of the markdown files `sources` (relative to `root`). */
export function brokenLinks(root: string, sources: string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOfFile = (path: string) => {
    let anchors = anchorCache.get(path);
    if (!anchors) anchorCache.set(path, (anchors = anchorsOf(readFileSync(path, 'utf8'))));
    return anchors;
  };
  for (const source of sources) {
    const path = join(root, source);
    for (const { line, target } of relativeLinks(readFileSync(path, 'utf8'))) {
      const [file, anchor] = target.split('#', 2) as [string, string | undefined];
      const targetPath = file === '' ? path : normalize(join(dirname(path), decodeURI(file)));
      const where = `${source}:${line}: ${target}`;
      if (relative(root, targetPath).startsWith(`..${sep}`)) {
        broken.push(`${where} (outside the repository)`);
      } else if (!existsSync(targetPath)) {
        broken.push(`${where} (no such file)`);
      } else if (anchor !== undefined) {
        if (statSync(targetPath).isDirectory() || !targetPath.endsWith('.md')) {
          broken.push(`${where} (an anchor into something that is not a markdown file)`);
        } else if (!anchorsOfFile(targetPath).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
  }
  return broken;
}
