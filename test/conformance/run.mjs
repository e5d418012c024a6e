#!/usr/bin/env node
// Runs the SERVER scenarios of the official MCP conformance suite (@modelcontextprotocol/conformance,
// a devDependency pinned in package.json) against this project's conformance fixture app
// (test/conformance/fixture), and its skills scenarios against the reference gateway (src/) too.
// `npm run test:conformance` runs everything below.
//
//   node test/conformance/run.mjs [--requirements 2025-11-25|2026-07-28|both] [--profile gateway|strict|all]
//                                 [--platform express|fastify|both]
//                                 [--scenario NAME]... [--include-extensions] [--verbose] [--keep]
//
// What runs. The suite ships one frozen requirement set per spec revision,
// requirements/<rev>.yaml, and each set runs at its own wire: 2025-11-25 with the initialize
// handshake and sessions, 2026-07-28 stateless with `_meta` on every request. Per set:
//   - scored: the file's `server:` list plus its `pending` not_scored entries (pending means the
//     suite's own reference server cannot pass them yet; this project can, so it holds itself to
//     them: 2025-11-25 scores 30 + 2, 2026-07-28 scores 37 + 3);
//   - run and reported, never scored: the other not_scored server entries (added-after-release);
//   - skipped unless --include-extensions: `extension` entries (tasks-*), and the suite's extension
//     scenarios that no set lists (sep-2640-skills-*, run with the 2026-07-28 set). The extensions
//     this project implements (SCORED_EXTENSIONS: the tasks and skills extensions) are scored when
//     they run; any others are run and reported only. `npm run test:conformance` passes
//     --include-extensions. The skills scenarios (EVERY_CHECK_SCENARIOS) pass only when every
//     check succeeds: they skip or warn, rather than fail, where the server shows nothing to check.
// The 2025-11-25 set runs once per wire profile (MCP_WIRE_PROFILE=gateway and strict), because
// the profiles differ only on that era's wire. The 2026-07-28 set runs once, at strict. --profile
// picks the profile(s) for every chosen set instead. --scenario (repeatable) narrows every chosen
// set to those names; naming an extension scenario selects it. Every set also runs once more with
// the fixture on Nest's Fastify platform (MCP_HTTP_PLATFORM=fastify), at its strict profile (or
// the first --profile chosen): the transports must answer alike on both platforms. --platform
// express (or fastify) runs on that platform alone.
//
// The reference gateway. The skills scenarios (GATEWAY_SCENARIOS) run against both: the fixture,
// and the reference gateway itself, whose `notes` skill (src/skills/notes) is what its users get.
// Whenever the Express run of the 2026-07-28 set selects them, the runner builds the gateway when
// dist/src/main.js is missing or stale (scripts/build-if-needed.mjs, what `npm start` runs first)
// and starts it as `npm start` does: in memory, no authorization, its default wire profile and
// platform (the settings it reads, MCP_*, OTEL_*, REDIS_*, URLS..., are dropped), on a free port.
// They run there one suite process each at the 2026-07-28 wire, scored as against the fixture
// (every check must succeed) with no baseline, reported as `2026-07-28 [reference gateway]`.
//
// How it runs. Each fixture profile starts once on a free 127.0.0.1 port and serves every set
// assigned to it. A set runs as ONE suite process: starting the suite's CLI costs ~1.4 s of CPU,
// a whole set ~2.5 s, so one process per scenario would take minutes on a 2-core machine. The
// batch is `--requirements <rev>` when every server entry of the file is wanted, otherwise
// `--suite all --spec-version <rev>`: the same wire, and the suite's applicability filter, which
// in this suite version selects exactly the file's entries minus the extensions. What the batch
// does not attempt (extensions no file lists) and every --scenario run go one process each
// (`--scenario S --spec-version <rev> --force`, what --requirements does per scenario). A
// hanging scenario costs the suite's per-scenario --timeout; each suite process is also killed
// at a hard deadline (what it had not finished is reported as lost), and the fixture is always
// stopped (the gateway too).
//
// A scenario PASSES when it wrote its checks.json and none of its checks is a FAILURE (WARNING,
// INFO and SKIPPED do not fail it). Expected failures come from baseline.<set>.yml (every profile
// of that set) and baseline.<set>.<profile>.yml next to this file: scenario names under `server:`.
// A baselined scenario that fails prints XFAIL; one that passes prints STALE and fails the run, so
// a baseline only ever shrinks. A scenario that left no result at all is never covered.
//
// Output: one line per scenario (PASS, FAIL, XFAIL, STALE, NS-OK, NS-FAIL), then per set and
// profile `<set> [<profile>]: N passed, M failed (...)` (`[reference gateway]` for the gateway). Exit code 1 when a scored scenario fails
// outside the baseline or a baseline entry is stale; 2 on setup errors; 0 otherwise.
//
// Environment: CONFORMANCE_PARALLEL (single-scenario processes at once, default 2),
// CONFORMANCE_TIMEOUT (seconds per scenario, default 30), CONFORMANCE_VERBOSE=1 (same as
// --verbose: also WARNING checks, the checks of expected failures and the fixture's log),
// MCP_FIXTURE_LOGS=1 (the fixture logs everything to its stderr). --keep keeps the per-scenario
// results (they are always kept when the run fails).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFixtureIfNeeded, FIXTURE_ENTRY } from './build-fixture.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const SHIM = join(HERE, 'shim', 'register.mjs');
const SETS = ['2025-11-25', '2026-07-28'];
const PROFILES = ['gateway', 'strict'];
/** The wire profile switches legacy-era shapes (subscribe results, -32002): one modern run is enough. */
const DEFAULT_PROFILES = { '2025-11-25': ['gateway', 'strict'], '2026-07-28': ['strict'] };
/** The set that also carries the suite's extension scenarios no requirement file lists. */
const EXTENSION_SET = '2026-07-28';
/**
 * Extension scenarios this project implements, so holds itself to: `io.modelcontextprotocol/tasks`
 * and `io.modelcontextprotocol/skills`.
 */
const SCORED_EXTENSIONS = /^(tasks-|sep-2640-skills-)/;
/**
 * Scenarios that pass only when every check is a SUCCESS. The skills scenarios report a check
 * they could not exercise (no subfolder to list, no SKILL.md to read) as SKIPPED or WARNING, and
 * everything as SKIPPED for a server that does not declare the extension: a fixture that stopped
 * publishing skills would otherwise still pass.
 */
const EVERY_CHECK_SCENARIOS = /^sep-2640-skills-/;
/**
 * Scenarios that also run against the reference gateway itself (src/, built to dist/src/main.js),
 * not only the fixture: the gateway serves its own `notes` skill, so the skills scenarios check
 * what a user of the gateway actually gets, not a fixture written for the suite.
 */
const GATEWAY_SCENARIOS = /^sep-2640-skills-/;
const GATEWAY_ENTRY = join(ROOT, 'dist', 'src', 'main.js');
/**
 * The gateway is started as `npm start` starts it (in memory, no authorization, its default wire
 * profile and platform), on a free port: every setting it reads from the environment is dropped.
 */
const GATEWAY_SETTINGS = /^(MCP_|OTEL_|REDIS_|GATEWAY_|NOTES_|URLS$)/;
const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
/** Beyond the suite's own per-scenario timeout: process start-up on a busy machine, and slack. */
const PROCESS_SLACK_MS = 30_000;

const require = createRequire(import.meta.url);
const SUITE_PACKAGE = require.resolve('@modelcontextprotocol/conformance/package.json');
const SUITE_DIR = dirname(SUITE_PACKAGE);
const SUITE_VERSION = JSON.parse(readFileSync(SUITE_PACKAGE, 'utf8')).version;
const CLI = join(SUITE_DIR, 'dist', 'index.js');
const CONFORMANCE = ['--no-warnings', '--import', SHIM, CLI];
// The suite's own YAML parser (a dependency of the suite), so the project needs none of its own.
const YAML = createRequire(SUITE_PACKAGE)('yaml');

/** A problem with the setup (not with the server under test): exit code 2. */
class SetupError extends Error {}

// ---- arguments ---------------------------------------------------------------------------------

function parseArgs(argv) {
  const args = {
    sets: SETS,
    profile: undefined,
    scenarios: [],
    includeExtensions: false,
    verbose: process.env.CONFORMANCE_VERBOSE === '1',
    keep: false,
    platforms: ['express', 'fastify'],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) usage(`${arg} needs a value`);
      return next;
    };
    if (arg === '--requirements') {
      const set = value();
      if (set !== 'both' && !SETS.includes(set)) usage(`unknown requirement set '${set}'`);
      args.sets = set === 'both' ? SETS : [set];
    } else if (arg === '--profile') {
      const profile = value();
      if (profile !== 'all' && !PROFILES.includes(profile)) usage(`unknown profile '${profile}'`);
      args.profile = profile;
    } else if (arg === '--platform') {
      const platform = value();
      if (!['express', 'fastify', 'both'].includes(platform)) usage(`unknown platform '${platform}'`);
      args.platforms = platform === 'both' ? ['express', 'fastify'] : [platform];
    } else if (arg === '--scenario') args.scenarios.push(value());
    else if (arg === '--include-extensions') args.includeExtensions = true;
    else if (arg === '--verbose') args.verbose = true;
    else if (arg === '--keep') args.keep = true;
    else if (arg === '-h' || arg === '--help') usage();
    else usage(`unknown argument '${arg}'`);
  }
  return args;
}

function usage(error) {
  const help = readFileSync(fileURLToPath(import.meta.url), 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => line.startsWith('//'))
    .map((line) => line.replace(/^\/\/ ?/, ''))
    .join('\n');
  if (error) console.error(`run.mjs: ${error}\n`);
  console.error(help);
  process.exit(error ? 2 : 0);
}

const positiveInt = (name, fallback) => {
  const raw = process.env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) usage(`${name} must be a positive integer, not '${raw}'`);
  return value;
};

// ---- child processes (every one we start is stopped, whatever happens) ---------------------------

const children = new Set();

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

const exited = (child) => child.exitCode !== null || child.signalCode !== null;

/** SIGTERM, then SIGKILL after the grace period; resolves when the process is gone. */
function stop(child, graceMs = STOP_GRACE_MS) {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

process.on('exit', () => {
  for (const child of children) if (!exited(child)) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.error(`\nrun.mjs: ${signal}, stopping ${children.size} child process(es)`);
    void Promise.all([...children].map((child) => stop(child, 2_000))).then(() => process.exit(130));
  });
}

/** Runs a command to completion, collecting its output (both streams, interleaved). */
function runProcess(command, args, { timeoutMs } = {}) {
  return new Promise((resolve) => {
    const child = track(spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          void stop(child);
        }, timeoutMs)
      : undefined;
    child.on('error', (error) => (output += `\n${error.message}`));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, output });
    });
  });
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the input order in the result. */
async function pool(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// ---- requirement sets --------------------------------------------------------------------------

/**
 * The server scenarios of requirements/<set>.yaml, in the file's order, each with
 * `scored` and `reason`: 'required' (the `server:` list), 'pending' and the extensions of
 * SCORED_EXTENSIONS are scored; the other not_scored entries ('added-after-release', other
 * extensions) are not.
 */
function readRequirementSet(set) {
  const file = join(SUITE_DIR, 'requirements', `${set}.yaml`);
  if (!existsSync(file)) throw new SetupError(`${relative(ROOT, file)} is missing: is the suite installed?`);
  const doc = YAML.parse(readFileSync(file, 'utf8'));
  const required = (doc.server ?? []).map((name) => ({ name, reason: 'required', scored: true }));
  const others = (doc.not_scored ?? [])
    .filter((entry) => entry.leg === 'server')
    .map((entry) => ({ name: entry.scenario, reason: entry.reason, scored: isScored(entry) }));
  return [...required, ...others];
}

function isScored(entry) {
  if (entry.reason === 'pending') return true;
  return entry.reason === 'extension' && SCORED_EXTENSIONS.test(entry.scenario);
}

/** The suite's extension scenarios (`[extension]` in `conformance list --server`). */
async function listExtensionScenarios() {
  const listed = await runProcess(process.execPath, [...CONFORMANCE, 'list', '--server'], { timeoutMs: 60_000 });
  const names = [...listed.output.matchAll(/^ {2}- (\S+) \[extension\]$/gm)].map((match) => match[1]);
  if (listed.code !== 0) throw new SetupError(`conformance list --server failed:\n${listed.output.trim()}`);
  return names;
}

/**
 * The suite's extension scenarios that no requirement file lists (sep-2640-skills-*), as not
 * scored entries. Asking the suite costs a process, so only when they may be wanted: with
 * --include-extensions, or a --scenario name that no file lists.
 */
async function unlistedExtensions(args, listed) {
  const mayWant = args.includeExtensions || args.scenarios.some((name) => !listed.has(name));
  if (!args.sets.includes(EXTENSION_SET) || !mayWant) return [];
  const names = await listExtensionScenarios();
  return names
    .filter((name) => !listed.has(name))
    .map((name) => ({ name, reason: 'extension', scored: SCORED_EXTENSIONS.test(name) }));
}

/**
 * What to run: one job per (set, profile) with its scenarios. `wholeFile` says that every server
 * entry of the set's file is wanted; `batch` that the set runs as one suite process (not with
 * --scenario). Throws SetupError on unknown --scenario names.
 */
async function plan(args) {
  const files = new Map(args.sets.map((set) => [set, readRequirementSet(set)]));
  const listed = new Set([...files.values()].flat().map((entry) => entry.name));
  const extensions = await unlistedExtensions(args, listed);
  const jobs = [];
  for (const [set, fromFile] of files) {
    const entries = set === EXTENSION_SET ? [...fromFile, ...extensions] : fromFile;
    const scenarios = args.scenarios.length
      ? entries.filter((entry) => args.scenarios.includes(entry.name))
      : entries.filter((entry) => args.includeExtensions || entry.reason !== 'extension');
    if (scenarios.length === 0) continue;
    const wholeFile = fromFile.every((entry) => scenarios.includes(entry));
    const profiles = profilesFor(set, args.profile);
    const batch = args.scenarios.length === 0;
    if (args.platforms.includes('express')) {
      for (const profile of profiles) jobs.push(job(set, profile, 'express', { scenarios, wholeFile, batch }));
    }
    if (args.platforms.includes('fastify')) {
      const profile = profiles.includes('strict') ? 'strict' : profiles[0];
      jobs.push(job(set, profile, 'fastify', { scenarios, wholeFile, batch }));
    }
  }
  const gateway = gatewayJob(args, jobs);
  if (gateway) jobs.push(gateway);
  const known = new Set([...listed, ...extensions.map((entry) => entry.name)]);
  const unknown = args.scenarios.filter((name) => !known.has(name));
  if (unknown.length) {
    throw new SetupError(
      `not a server scenario of ${args.sets.join(' or ')}: ${unknown.join(', ')}\navailable: ${[...known].join(' ')}`,
    );
  }
  return jobs;
}

/** One job; `label` names its profile, and its platform when that is not Express. */
function job(set, profile, platform, rest) {
  const label = platform === 'express' ? profile : `${profile}, ${platform}`;
  return { set, profile, platform, label, target: 'fixture', ...rest };
}

/**
 * The GATEWAY_SCENARIOS of the Express run of EXTENSION_SET, once more against the reference
 * gateway (its default platform is Express), one process per scenario as for the fixture.
 */
function gatewayJob(args, jobs) {
  const fixtureJob = jobs.find((each) => each.set === EXTENSION_SET && each.platform === 'express');
  const scenarios = fixtureJob?.scenarios.filter((entry) => GATEWAY_SCENARIOS.test(entry.name)) ?? [];
  if (scenarios.length === 0) return undefined;
  return {
    set: EXTENSION_SET,
    profile: 'gateway',
    platform: 'express',
    label: 'reference gateway',
    target: 'gateway',
    scenarios,
    wholeFile: false,
    batch: false,
  };
}

function profilesFor(set, profile) {
  if (profile === undefined) return DEFAULT_PROFILES[set];
  return profile === 'all' ? PROFILES : [profile];
}

// ---- baselines ---------------------------------------------------------------------------------

/**
 * Expected failures of one (set, profile): baseline.<set>.yml plus baseline.<set>.<profile>.yml,
 * each a YAML document with a `server:` list of scenario names (comments say why). Every name must
 * be a scored scenario of the set.
 */
function readBaseline(set, profile) {
  const scored = new Set(
    readRequirementSet(set)
      .filter((entry) => entry.scored)
      .map((entry) => entry.name),
  );
  const files = [`baseline.${set}.yml`, `baseline.${set}.${profile}.yml`]
    .map((name) => join(HERE, name))
    .filter((file) => existsSync(file));
  const names = new Set();
  for (const file of files) {
    const list = YAML.parse(readFileSync(file, 'utf8'))?.server ?? [];
    if (!Array.isArray(list)) throw new SetupError(`${relative(ROOT, file)}: 'server' must be a list of names`);
    for (const name of list) {
      if (!scored.has(name)) {
        throw new SetupError(`${relative(ROOT, file)}: '${name}' is not a scored server scenario of ${set}`);
      }
      names.add(name);
    }
  }
  return { names, files: files.map((file) => relative(ROOT, file)) };
}

// ---- the suite ---------------------------------------------------------------------------------

/** One suite process (`conformance server ...`), killed if it outlives `deadlineMs`. */
async function runSuite(url, outDir, selection, options, deadlineMs) {
  const args = ['server', '--url', url, ...selection, '--timeout', String(options.timeoutMs), '-o', outDir];
  const result = await runProcess(process.execPath, [...CONFORMANCE, ...args], { timeoutMs: deadlineMs });
  return { ...result, deadlineSeconds: Math.round(deadlineMs / 1000) };
}

/**
 * A whole set in one suite process: --requirements when every server entry of the file is wanted,
 * else --suite all --spec-version, the suite's applicability filter at the same wire (it leaves
 * out extension scenarios, which never apply to a dated revision).
 */
function runBatch(url, job, outDir, options) {
  const selection = job.wholeFile ? ['--requirements', job.set] : ['--suite', 'all', '--spec-version', job.set];
  // The suite times each scenario out itself; this deadline is for a suite process that hangs.
  const deadlineMs = job.scenarios.length * (options.timeoutMs + 5_000) + PROCESS_SLACK_MS;
  return runSuite(url, outDir, selection, options, deadlineMs);
}

/** One scenario in its own suite process, at the set's wire even where the suite would skip it. */
function runSingle(url, set, name, outDir, options) {
  const selection = ['--scenario', name, '--spec-version', set, '--force'];
  return runSuite(url, outDir, selection, options, options.timeoutMs + PROCESS_SLACK_MS);
}

/** checks.json per scenario name. The suite writes `<outDir>/server-<name>-<ISO time>/checks.json`. */
function collectResults(outDir) {
  const found = new Map();
  for (const dir of readdirSync(outDir).sort()) {
    const match = dir.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
    const checks = join(outDir, dir, 'checks.json');
    if (match && existsSync(checks)) found.set(match[1], checks);
  }
  return found;
}

/** The part of a batch's output that belongs to one scenario. */
function batchSection(output, name) {
  const start = output.indexOf(`=== Running scenario: ${name} ===`);
  if (start < 0) return '';
  const end = output.indexOf('=== Running scenario: ', start + 1);
  return output.slice(start, end < 0 ? undefined : end);
}

/**
 * Runs one (set, profile) against the fixture at `url`: the batch, then one process per scenario
 * the batch did not attempt (unless the batch had to be killed: then something hangs, and the rest
 * is reported as lost rather than waited for again). Returns per scenario its checks file, if
 * any, its share of the suite's output, and why a result is missing.
 */
async function runScenarios(url, job, outDir, options) {
  const notes = new Map();
  if (job.batch) {
    const batch = await runBatch(url, job, outDir, options);
    writeFileSync(join(outDir, 'batch.log'), batch.output);
    if (collectResults(outDir).size === 0) {
      const tail = batch.output.trim().split('\n').slice(-20).join('\n');
      throw new SetupError(`the suite produced no result at all (exit ${batch.code ?? batch.signal}):\n${tail}`);
    }
    const lost = batch.timedOut
      ? `no result: the suite process was killed at its ${batch.deadlineSeconds}s deadline`
      : 'the scenario wrote no checks.json';
    for (const entry of job.scenarios) notes.set(entry.name, { output: batchSection(batch.output, entry.name), lost });
    noteUnrequested(batch.output, job);
    if (batch.timedOut) return withResults(job, outDir, notes);
  }
  // Alone: what the batch did not attempt (extensions outside the file, or no batch at all). One
  // that crashed inside the batch keeps the batch's result: a rerun would crash the same way.
  const missing = job.scenarios.filter((entry) => !notes.get(entry.name)?.output);
  await pool(missing, options.parallel, async (entry) => {
    const single = await runSingle(url, job.set, entry.name, outDir, options);
    writeFileSync(join(outDir, `${entry.name}.log`), single.output);
    const lost = single.timedOut
      ? `TIMEOUT: the suite process was killed at its ${single.deadlineSeconds}s deadline`
      : `the scenario wrote no checks.json (exit ${single.code ?? single.signal})`;
    notes.set(entry.name, { output: single.output, lost });
  });
  return withResults(job, outDir, notes);
}

/** Says so when the suite's batch ran a scenario that the set does not select (a newer suite). */
function noteUnrequested(output, job) {
  const attempted = [...output.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((match) => match[1]);
  const extra = attempted.filter((name) => !job.scenarios.some((entry) => entry.name === name));
  if (extra.length) console.log(`note: the suite also ran ${extra.join(', ')} (not selected from ${job.set}; ignored)`);
}

function withResults(job, outDir, notes) {
  const found = collectResults(outDir);
  return job.scenarios.map((entry) => ({ entry, checksFile: found.get(entry.name), ...notes.get(entry.name) }));
}

// ---- the servers under test ----------------------------------------------------------------------

function startFixture(profile, platform) {
  const env = { ...process.env, URLS: 'http://127.0.0.1:0', MCP_WIRE_PROFILE: profile, MCP_HTTP_PLATFORM: platform };
  return startServer('the fixture', FIXTURE_ENTRY, env, /listening on (http:\/\/\S+\/mcp)/);
}

/** The built reference gateway, as `npm start` runs it, on a free port. */
function startGateway() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !GATEWAY_SETTINGS.test(name)));
  env.URLS = 'http://127.0.0.1:0';
  // Its start-up log line: `MCP endpoints: http://127.0.0.1:<port>/mcp (Streamable HTTP), ...`.
  return startServer('the gateway', GATEWAY_ENTRY, env, /MCP endpoints: (http:\/\/\S+\/mcp)/);
}

/** `npm start`'s own build step: `nest build` when dist/ is missing or older than the sources. */
function buildGatewayIfNeeded() {
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-needed.mjs')], {
    cwd: ROOT,
    stdio: ['ignore', process.stderr, process.stderr],
    timeout: 300_000,
  });
  if (result.status !== 0) {
    throw new SetupError(`building the reference gateway failed (exit ${result.status ?? result.signal})`);
  }
}

/** Starts `entry` and resolves once it has printed its MCP endpoint (`ready`) and answers there. */
async function startServer(name, entry, env, ready) {
  const child = track(spawn(process.execPath, [entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  const server = { child, log: '', url: undefined };
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (server.log += chunk));
  try {
    server.url = await new Promise((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(
        () => reject(new Error(`no ready line within ${STARTUP_TIMEOUT_MS / 1000}s`)),
        STARTUP_TIMEOUT_MS,
      );
      child.stdout.on('data', (chunk) => {
        server.log += chunk;
        stdout += chunk;
        const match = stdout.match(ready);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code ?? signal}) before listening`));
      });
      child.once('error', reject);
    });
    await waitUntilAnswering(server.url);
    return server;
  } catch (error) {
    await stop(child);
    throw new Error(`${error.message}\n--- output of ${name} ---\n${server.log.trim()}`);
  }
}

/** Polls with a JSON-RPC ping until the endpoint answers over HTTP at all (any status). */
async function waitUntilAnswering(url) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
        signal: AbortSignal.timeout(5_000),
      });
      await response.body?.cancel();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} does not answer: ${error.message}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

// ---- results -----------------------------------------------------------------------------------

const oneLine = (text, max) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);

/** Pass or fail of one scenario, from its checks.json (a missing one is a failure). */
function evaluate({ entry, checksFile, output = '', lost = 'no result' }) {
  if (!checksFile) {
    // The suite's own error line says more than the stack trace or JSON that follows it.
    const lines = output.trim().split('\n');
    const reason = lines.findLast((line) => /error/i.test(line)) ?? lines.at(-1) ?? '';
    return {
      entry,
      ok: false,
      lost: true,
      summary: reason.trim() ? `${lost}: ${oneLine(reason, 200)}` : lost,
      checks: [],
      output,
    };
  }
  const checks = JSON.parse(readFileSync(checksFile, 'utf8'));
  const count = (status) => checks.filter((check) => check.status === status).length;
  const failures = count('FAILURE');
  const everyCheck = EVERY_CHECK_SCENARIOS.test(entry.name);
  const notSucceeded = checks.length === 0 || checks.some((check) => check.status !== 'SUCCESS');
  const skipped = count('SKIPPED');
  return {
    entry,
    ok: failures === 0 && !(everyCheck && notSucceeded),
    lost: false,
    summary:
      `${count('SUCCESS')} ok, ${failures} fail, ${count('WARNING')} warn` +
      (skipped ? `, ${skipped} skipped` : '') +
      (everyCheck && notSucceeded ? ' (every check must succeed)' : ''),
    checks,
    output,
  };
}

/**
 * PASS / FAIL for scored scenarios, XFAIL when the baseline expects the failure, STALE when it
 * expects one that did not happen; NS-OK / NS-FAIL for the not scored ones. A scenario that left no
 * result is a FAIL even when baselined: the baseline records how the server fails, not the runner.
 */
function tagOf(result, baseline) {
  if (!result.entry.scored) return result.ok ? 'NS-OK' : 'NS-FAIL';
  const listed = baseline.names.has(result.entry.name);
  if (result.ok) return listed ? 'STALE' : 'PASS';
  return listed && !result.lost ? 'XFAIL' : 'FAIL';
}

function printHeader(job) {
  const scored = job.scenarios.filter((entry) => entry.scored);
  const pending = scored.filter((entry) => entry.reason === 'pending').length;
  const extensions = scored.filter((entry) => entry.reason === 'extension').length;
  const baseline = job.baseline.files.length ? job.baseline.files.join(' + ') : 'none';
  console.log(
    `\n== ${job.set} [${job.label}] at the ${job.set} wire: ${scored.length} scored ` +
      `(${scored.length - pending - extensions} required + ${pending} pending + ${extensions} extension), ` +
      `${job.scenarios.length - scored.length} not scored | baseline: ${baseline} ==`,
  );
}

/** One line per scenario; the checks behind a failure for unexpected ones (all of them with --verbose). */
function printResult(result, tag, pad, verbose) {
  const { entry } = result;
  const failedIds = [...new Set(result.checks.filter((c) => c.status === 'FAILURE').map((c) => c.id))];
  const detailed = tag === 'FAIL' || verbose;
  let note = '';
  if (entry.reason === 'pending') note += '  (pending)';
  if (entry.reason === 'extension' && entry.scored) note += '  (extension)';
  if (!entry.scored) note += `  (not scored: ${entry.reason})`;
  if (!detailed && failedIds.length) {
    const more = failedIds.length > 4 ? `, +${failedIds.length - 4} more` : '';
    note += `  [${failedIds.slice(0, 4).join(', ')}${more}]`;
  }
  console.log(`${tag.padEnd(7)} ${entry.name.padEnd(pad)}  ${result.summary}${note}`);
  if (!detailed) return;
  const everyCheck = EVERY_CHECK_SCENARIOS.test(entry.name);
  const shown = result.checks.filter(
    (c) => c.status === 'FAILURE' || (verbose && c.status === 'WARNING') || (everyCheck && c.status !== 'SUCCESS'),
  );
  for (const check of shown) {
    console.log(`          ${check.status} ${check.id}: ${oneLine(check.errorMessage ?? check.description, 600)}`);
  }
  if (result.lost && result.output.trim()) {
    for (const line of result.output.trim().split('\n').slice(-15)) console.log(`          | ${line}`);
  }
}

/** Prints one (set, profile) and its summary line; returns the scenarios that fail the run. */
function report(job, results, verbose) {
  const pad = Math.max(...results.map((result) => result.entry.name.length));
  const tagged = results.map((result) => ({ result, tag: tagOf(result, job.baseline) }));
  // Scored first, in the file's order, then the not scored ones.
  const ordered = [...tagged.filter((t) => t.result.entry.scored), ...tagged.filter((t) => !t.result.entry.scored)];
  for (const { result, tag } of ordered) printResult(result, tag, pad, verbose);

  const named = (tag) => tagged.filter((t) => t.tag === tag).map((t) => t.result.entry.name);
  const unexpected = named('FAIL');
  const expected = named('XFAIL');
  const stale = named('STALE');
  const passed = named('PASS').length + stale.length;
  const notScored = tagged.filter((t) => !t.result.entry.scored);
  let line = `${job.set} [${job.label}]: ${passed} passed, ${unexpected.length + expected.length} failed`;
  if (job.baseline.names.size) {
    line += ` (${expected.length} expected by the baseline, ${unexpected.length} unexpected, ${stale.length} stale)`;
  }
  if (notScored.length) {
    line += `; not scored: ${notScored.length} run, ${notScored.filter((t) => t.tag === 'NS-FAIL').length} failing`;
  }
  for (const name of unexpected)
    console.log(`FAILED: ${job.set} [${job.label}] ${name} failed and is not in the baseline`);
  for (const name of stale)
    console.log(`STALE: ${job.set} [${job.label}] ${name} passes: remove it from ${job.baseline.files.join(' / ')}`);
  console.log(line);
  return [...unexpected, ...stale];
}

// ---- main --------------------------------------------------------------------------------------

/**
 * Starts the server of these jobs (the fixture in one wire profile and platform, or the reference
 * gateway) and runs every job against it.
 */
async function runProfile(jobs, root, options) {
  const { profile, platform, label, target } = jobs[0];
  const server = target === 'gateway' ? await startGateway() : await startFixture(profile, platform);
  console.log(
    target === 'gateway'
      ? `\n-- reference gateway (${relative(ROOT, GATEWAY_ENTRY)}, in memory, no authorization): ${server.url}`
      : `\n-- fixture app, wire profile ${profile} on ${platform}: ${server.url}`,
  );
  const failing = [];
  try {
    for (const job of jobs) {
      const outDir = join(root, `${job.target}-${job.set}-${job.profile}-${job.platform}`);
      mkdirSync(outDir, { recursive: true });
      printHeader(job);
      const results = (await runScenarios(server.url, job, outDir, options)).map(evaluate);
      failing.push(...report(job, results, options.verbose));
    }
  } finally {
    await stop(server.child);
    if (options.verbose && server.log.trim()) console.log(`--- ${target} output (${label}) ---\n${server.log.trim()}`);
  }
  return failing;
}

function groupByProfile(jobs) {
  const groups = new Map();
  for (const job of jobs) groups.set(job.label, [...(groups.get(job.label) ?? []), job]);
  return groups;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const options = {
    parallel: positiveInt('CONFORMANCE_PARALLEL', 2),
    timeoutMs: positiveInt('CONFORMANCE_TIMEOUT', 30) * 1000,
    verbose: args.verbose,
  };
  const started = Date.now();
  let jobs;
  try {
    buildFixtureIfNeeded();
    jobs = await plan(args);
    // The baselines are the fixture's: the gateway's scenarios must pass as they are.
    for (const job of jobs) {
      job.baseline = job.target === 'gateway' ? { names: new Set(), files: [] } : readBaseline(job.set, job.profile);
    }
    if (jobs.some((job) => job.target === 'gateway')) buildGatewayIfNeeded();
  } catch (error) {
    console.error(`run.mjs: ${error.message}`);
    return 2;
  }
  const root = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  console.log(
    `MCP conformance ${SUITE_VERSION} | ${jobs.map((job) => `${job.set} [${job.label}]`).join(', ')} | ` +
      `timeout=${options.timeoutMs / 1000}s per scenario | results: ${root}`,
  );
  const failing = [];
  try {
    for (const profileJobs of groupByProfile(jobs).values()) {
      failing.push(...(await runProfile(profileJobs, root, options)));
    }
  } catch (error) {
    console.error(`run.mjs: ${error.message}`);
    console.error(`results kept in ${root}`);
    return 2;
  }
  if (failing.length === 0 && !args.keep) rmSync(root, { recursive: true, force: true });
  else console.log(`\nper-scenario logs and checks kept in ${root}`);
  console.log(`elapsed: ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return failing.length === 0 ? 0 : 1;
}

process.exit(await main());
