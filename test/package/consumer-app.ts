/**
 * A fresh Nest application outside this repository, made by Nest's own `application`
 * schematic (what `nest new` runs) in CommonJS or ESM, with `@nest-mcp/server` installed from its
 * tarball next to only the documented peers. npm's cache is shared with this repository's
 * install (`--prefer-offline`), so the same versions come from the cache.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
/** This repository's version range of a package, so that npm finds it in its cache. */
const versionOf = (name: string): string => rootPackage.dependencies[name] ?? rootPackage.devDependencies[name];

export type ModuleKind = 'cjs' | 'esm';

/** The Nest HTTP platform an application runs on: Express is what the scaffold installs. */
export type HttpPlatform = 'express' | 'fastify';

/** The environment of npm in the application: the test runner's, minus npm's per-project variables. */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_registry']);
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_') || keep.has(key)));
}

/** `npm`, as the one running the tests when there is one. */
function npm(args: string[], cwd: string) {
  const cli = process.env.npm_execpath;
  const [command, prefix] = cli && /npm-cli\.js$/.test(cli) ? [process.execPath, [cli]] : ['npm', []];
  return run(command, [...prefix, ...args], { cwd, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 });
}

/** `nest new <name>` without its prompts: the `application` schematic with `--type`. */
export async function scaffold(parent: string, name: string, type: ModuleKind): Promise<string> {
  await run(
    process.execPath,
    [
      join(ROOT, 'node_modules', '@angular-devkit', 'schematics-cli', 'bin', 'schematics.js'),
      `${join(ROOT, 'node_modules', '@nestjs', 'schematics', 'dist', 'collection.json')}:application`,
      `--name=${name}`,
      `--type=${type}`,
      '--observe=false',
      '--spec=false',
      '--no-dry-run',
    ],
    { cwd: parent },
  );
  return join(parent, name);
}

const editJson = (path: string, edit: (json: any) => void) => {
  const json = JSON.parse(readFileSync(path, 'utf8'));
  edit(json);
  writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
};

/**
 * Adds the MCP server: the tarball and the documented peers as dependencies (the scaffold's own
 * dependencies stay), TypeScript and Node's types as the only dev dependencies (the scaffold's
 * test and lint tooling is not needed to build), `tsc -p tsconfig.build.json` as the build
 * (`nest build` with its default tsc builder), the application's code, and a line in main.ts
 * that logs the URL once the application listens.
 */
export function addMcpServer(
  app: string,
  tarball: string,
  files: Record<string, string>,
  platform: HttpPlatform = 'express',
): void {
  editJson(join(app, 'package.json'), (pkg) => {
    pkg.dependencies['@nest-mcp/server'] = `file:${tarball}`;
    for (const peer of ['class-validator', 'class-transformer']) pkg.dependencies[peer] = versionOf(peer);
    if (platform === 'fastify') {
      // Fastify instead of Express, as docs/transports.md says: only the platform the app runs on.
      delete pkg.dependencies['@nestjs/platform-express'];
      for (const peer of ['@nestjs/platform-fastify', 'fastify']) pkg.dependencies[peer] = versionOf(peer);
    }
    pkg.devDependencies = { typescript: versionOf('typescript'), '@types/node': versionOf('@types/node') };
    pkg.scripts = { build: 'tsc -p tsconfig.build.json', start: 'node dist/main.js' };
  });
  // The scaffold's tsconfig names the type packages of its test runner (jest or vitest).
  editJson(join(app, 'tsconfig.json'), (tsconfig) => (tsconfig.compilerOptions.types = ['node']));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(app, file), text);
  // The scaffold's main.ts listens on PORT and says nothing once it does: say where, after listening.
  const main = join(app, 'src', 'main.ts');
  const listen = 'await app.listen(process.env.PORT ?? 3000);';
  let source = readFileSync(main, 'utf8');
  if (!source.includes(listen)) throw new Error(`the scaffold's main.ts no longer has '${listen}':\n${source}`);
  if (platform === 'fastify') {
    const create = 'NestFactory.create(AppModule)';
    if (!source.includes(create)) throw new Error(`the scaffold's main.ts no longer has '${create}':\n${source}`);
    source = `import { FastifyAdapter } from '@nestjs/platform-fastify';\n${source.replace(create, 'NestFactory.create(AppModule, new FastifyAdapter())')}`;
  }
  writeFileSync(main, source.replace(listen, `${listen}\n  console.log(\`Listening on \${await app.getUrl()}\`);`));
}

/** `npm install` from npm's cache where it can; resolves with npm's output. */
export async function install(app: string): Promise<string> {
  const { stdout, stderr } = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund'], app);
  return `${stdout}${stderr}`;
}

export async function build(app: string): Promise<void> {
  await npm(['run', 'build'], app);
}
