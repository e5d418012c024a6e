/**
 * Type-checks the documentation's TypeScript blocks (README.md and docs/) against the library, in
 * one TypeScript program with the compiler options of a `nest new` application (strict), and
 * writes the JavaScript of each block to node_modules/.cache/nest-mcp-readme/ so that the ones
 * forming a program can run.
 *
 * `@nest-mcp/server` resolves to the library's sources (libs/mcp/src/index.ts). A block becomes
 * one module, named by its first line (`// app.module.ts`) or after its file and line
 * (`docs-tools-line-12.ts`), so that the blocks of one program import each other as the pages show
 * (`./weather.tools.js`). Named blocks share one folder: a name is used once in all the pages.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { Snippet } from './readme-snippets.js';
import type { SnippetContext } from './snippet-contexts.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where the blocks live for the compiler (never written: a virtual folder). */
const SNIPPETS_DIR = join(ROOT, 'test', 'readme', 'snippets');
/** Where their JavaScript is written (resolves packages from the repository's node_modules). */
export const OUTPUT_DIR = join(ROOT, 'node_modules', '.cache', 'nest-mcp-readme');

/** Nest names that fragments use without importing them. */
const NEST_NAMES = ['Injectable', 'Module', 'type CanActivate', 'type ExecutionContext', 'type INestApplication'];
/** Ambient declarations the library's sources rely on (its tsconfig includes them). */
const LIBRARY_DECLARATIONS = [join(ROOT, 'libs', 'mcp', 'src', 'schema', 'class-transformer-storage.d.ts')];

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2023,
  strict: true,
  strictPropertyInitialization: false,
  // As `nest new` sets up: the types a block infers from the library are written out by name.
  declaration: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  isolatedModules: true,
  skipLibCheck: true,
  types: ['node', 'jest'],
  outDir: OUTPUT_DIR,
  paths: {
    '@nest-mcp/server': [join(ROOT, 'libs', 'mcp', 'src', 'index.ts')],
    '@nest-mcp/server/backend': [join(ROOT, 'libs', 'mcp', 'src', 'backend', 'index.ts')],
    '@nest-mcp/server/testing': [join(ROOT, 'libs', 'mcp', 'src', 'testing', 'index.ts')],
    '@nest-mcp/redis': [join(ROOT, 'libs', 'mcp-redis', 'src', 'index.ts')],
  },
};

export interface CompiledSnippet extends Snippet {
  /** The module's file name, e.g. `app.module.ts`. */
  name: string;
  /** The emitted JavaScript. */
  output: string;
}

export interface Compilation {
  snippets: CompiledSnippet[];
  /** Every compiler error, as `<file>:<line>: <message>` (`docs/tools.md:40: TS2322: ...`) where it falls in a block. */
  errors: string[];
}

interface Module {
  snippet: Snippet;
  name: string;
  path: string;
  text: string;
  /** Lines added before the block's first line. */
  offset: number;
}

export function compileSnippets(snippets: Snippet[], contexts: Record<string, SnippetContext>): Compilation {
  const virtual = new Map<string, string>();
  const host = ts.createCompilerHost(OPTIONS, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = virtual.get(fileName);
    if (text === undefined) return getSourceFile.call(host, fileName, languageVersion, onError, shouldCreate);
    return ts.createSourceFile(fileName, text, languageVersion, true);
  };
  host.fileExists = (fileName) => virtual.has(fileName) || fileExists.call(host, fileName);
  host.readFile = (fileName) => virtual.get(fileName) ?? readFile.call(host, fileName);
  const { directoryExists } = host;
  host.directoryExists = (name) => name === SNIPPETS_DIR || (directoryExists?.call(host, name) ?? true);

  // Pass 1: the names the package exports, for the fragments' implicit imports.
  const probe = join(SNIPPETS_DIR, '__exports.ts');
  virtual.set(probe, "export * from '@nest-mcp/server';\n");
  const probing = ts.createProgram([probe, ...LIBRARY_DECLARATIONS], OPTIONS, host);
  const checker = probing.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(probing.getSourceFile(probe)!)!);
  // Types in decorated signatures must come through `import type` (isolatedModules).
  const resolve = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const isValue = (symbol: ts.Symbol) => (resolve(symbol).flags & ts.SymbolFlags.Value) !== 0;
  const implicitImports = [
    `import { ${exported
      .filter(isValue)
      .map((symbol) => symbol.name)
      .join(', ')} } from '@nest-mcp/server';`,
    `import type { ${exported
      .filter((symbol) => !isValue(symbol))
      .map((symbol) => symbol.name)
      .join(', ')} } from '@nest-mcp/server';`,
    `import { ${NEST_NAMES.join(', ')} } from '@nestjs/common';`,
  ];
  virtual.delete(probe);

  // Pass 2: every block as a module.
  const modules = toModules(snippets, contexts, implicitImports);
  for (const module of modules) virtual.set(module.path, module.text);
  const program = ts.createProgram(
    [...modules.map((module) => module.path), ...LIBRARY_DECLARATIONS],
    OPTIONS,
    host,
    probing,
  );
  const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => describe(diagnostic, modules));

  rmSync(OUTPUT_DIR, { recursive: true, force: true });
  mkdirSync(OUTPUT_DIR, { recursive: true });
  writeFileSync(join(OUTPUT_DIR, 'package.json'), '{ "type": "module" }\n');
  for (const module of modules) {
    program.emit(program.getSourceFile(module.path), (fileName, text) =>
      writeFileSync(join(OUTPUT_DIR, basename(fileName)), text),
    );
  }
  return {
    snippets: modules.map(({ snippet, name }) => ({
      ...snippet,
      name,
      output: join(OUTPUT_DIR, name.replace(/\.ts$/, '.js')),
    })),
    errors,
  };
}

function toModules(snippets: Snippet[], contexts: Record<string, SnippetContext>, implicitImports: string[]): Module[] {
  const used = new Set<string>();
  const names = new Set<string>();
  const perSection = new Map<string, number>();
  const modules = snippets.map((snippet) => {
    const where = `${snippet.source}: ${snippet.section}`;
    const ordinal = (perSection.get(where) ?? 0) + 1;
    perSection.set(where, ordinal);
    const key = [`${where} #${ordinal}`, where].find((candidate) => candidate in contexts);
    const context = key === undefined ? undefined : contexts[key];
    if (key !== undefined) used.add(key);
    const fragment = !/^import /m.test(snippet.code);
    if (fragment && !context) {
      throw new Error(
        `${snippet.source}:${snippet.line}: a block without imports (section "${snippet.section}", block ${ordinal}) needs an entry '${where} #${ordinal}' in snippet-contexts.ts`,
      );
    }
    const name = snippet.file ?? `${moduleStem(snippet.source)}-line-${snippet.line}.ts`;
    if (names.has(name)) throw new Error(`${snippet.source}:${snippet.line}: a second block named ${name}`);
    names.add(name);

    const before = [...(fragment ? implicitImports : []), ...(context?.declarations?.split('\n') ?? [])];
    let lines: string[];
    let offset: number;
    if (context?.classMembers !== undefined) {
      const opening = [
        '@Injectable()',
        `export class SnippetLine${snippet.line} {`,
        ...context.classMembers.split('\n'),
      ];
      lines = [...before, ...opening, snippet.code, '}'];
      offset = before.length + opening.length;
    } else {
      // `export {}` makes a fragment a module (top-level await, no global names).
      lines = [...before, snippet.code, ...(fragment ? ['export {};'] : [])];
      offset = before.length;
    }
    return { snippet, name, path: join(SNIPPETS_DIR, name), text: `${lines.join('\n')}\n`, offset };
  });
  const stale = Object.keys(contexts).filter((key) => !used.has(key));
  if (stale.length > 0)
    throw new Error(`snippet-contexts.ts has entries for no documentation block: ${stale.join(', ')}`);
  return modules;
}

/** `README.md` → `readme`, `docs/decisions/README.md` → `docs-decisions-readme`. */
function moduleStem(source: string): string {
  return source
    .replace(/\.md$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
}

function describe(diagnostic: ts.Diagnostic, modules: Module[]): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const file = diagnostic.file;
  if (!file || diagnostic.start === undefined) return `TS${diagnostic.code}: ${message}`;
  const { line } = file.getLineAndCharacterOfPosition(diagnostic.start);
  const module = modules.find((candidate) => candidate.path === file.fileName);
  if (!module) return `${relative(ROOT, file.fileName)}:${line + 1}: TS${diagnostic.code}: ${message}`;
  const { source, line: first } = module.snippet;
  const where =
    line < module.offset
      ? `${source}:${first} (in what snippet-contexts.ts adds)`
      : `${source}:${first + line - module.offset}`;
  return `${where}: TS${diagnostic.code}: ${message}`;
}
