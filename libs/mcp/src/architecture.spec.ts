/**
 * docs/architecture.md promises a layering: every file of the library belongs to one layer of its
 * table, every import points down (or stays in its layer), and no two files import each other in
 * a loop. This reads the table and the imports, so the page and the code cannot drift apart.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = dirname(fileURLToPath(import.meta.url));
const PAGE = readFileSync(join(SRC, '..', '..', '..', 'docs', 'architecture.md'), 'utf8');

interface Layer {
  readonly name: string;
  /** Folders (`auth/`) and files (`mcp.module.ts`) of the layer, relative to `libs/mcp/src`. */
  readonly places: readonly string[];
}

/** The rows of the page's Layers table, bottom layer first. */
function readLayers(): Layer[] {
  const section = PAGE.slice(PAGE.indexOf('## Layers'), PAGE.indexOf('## The protocol core'));
  return section
    .split('\n')
    .map((line) => /^\| ([a-z ]+) \| (.+?) \| /.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && match[1] !== 'Layer')
    .map((match) => ({ name: match[1], places: [...match[2].matchAll(/`([^`]+)`/g)].map((place) => place[1]) }));
}

/** The library's source files (specs and declaration files aside), relative to `libs/mcp/src`. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    const file = relative(SRC, path).split('\\').join('/');
    return file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.endsWith('.d.ts') ? [file] : [];
  });
}

const IMPORT = /^(?:import|export)\b[^;]*?\bfrom '(\.{1,2}\/[^']+)'/gms;

/** The library files `file` imports (type-only imports included). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((match) =>
    normalize(join(dirname(file), match[1]))
      .split('\\')
      .join('/')
      .replace(/\.js$/, '.ts'),
  );
}

const layers = readLayers();
const files = sourceFiles();
const graph = new Map(files.map((file) => [file, importsOf(file)]));

/** The index of the layer holding `file`: the most specific place naming it. */
function layerOf(file: string): number | undefined {
  let found: { index: number; length: number } | undefined;
  layers.forEach((layer, index) => {
    for (const place of layer.places) {
      const holds = place.endsWith('/') ? file.startsWith(place) : file === place;
      if (holds && (!found || place.length > found.length)) found = { index, length: place.length };
    }
  });
  return found?.index;
}

/** Each loop in `edges` (Tarjan's strongly connected components of more than one node). */
function loops(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!edges.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const loop: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      loop.push(member);
    } while (member !== file);
    if (loop.length > 1) found.push(loop.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
}

/**
 * The imports between folders (`protocol/eras` -> `protocol`): a file at the library's root is its
 * own node, and an entry (`index.ts`, which gathers its folder's subfolders) is left out.
 */
function folderGraph(): Map<string, string[]> {
  const folderOf = (file: string) => (file.includes('/') ? dirname(file) : file);
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    if (file.endsWith('/index.ts')) continue;
    const from = folderOf(file);
    const into = folders.get(from) ?? new Set<string>();
    folders.set(from, into);
    for (const target of targets) if (folderOf(target) !== from) into.add(folderOf(target));
  }
  return new Map([...folders].map(([folder, targets]) => [folder, [...targets]]));
}

describe('the layering docs/architecture.md describes', () => {
  it('has its layers, from the model up', () => {
    expect(layers.map((layer) => layer.name)[0]).toBe('model');
    expect(layers.length).toBeGreaterThan(5);
  });

  it('names the layer of every file', () => {
    expect(files.filter((file) => layerOf(file) === undefined)).toEqual([]);
  });

  it('has every import point down or stay in its layer', () => {
    const upward = files.flatMap((file) =>
      graph
        .get(file)!
        .filter((target) => (layerOf(target) ?? -1) > layerOf(file)!)
        .map(
          (target) => `${file} (${layers[layerOf(file)!].name}) imports ${target} (${layers[layerOf(target)!].name})`,
        ),
    );
    expect(upward).toEqual([]);
  });

  it('has no two files importing each other in a loop', () => {
    expect(loops(graph)).toEqual([]);
  });

  it('has no two folders importing each other in a loop, inside a layer too', () => {
    // `protocol/eras` may use `protocol/handlers`, or the reverse, never both: each folder keeps
    // one place in the order of its neighbours.
    expect(loops(folderGraph())).toEqual([]);
  });
});
